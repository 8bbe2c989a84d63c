package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/respcache"
)

// queryAnswers keeps /graphql answers per chain state (respcache), so a query repeated at one
// state is computed once and then runs no statement. A document is kept only when all its
// operations are queries whose root fields read stored chain data: mutations change state, and
// replicationLag moves with time. Its answers are keyed by the versions of the parts of the
// state it reads: BRC-20 root fields the BRC-20 state, the others the chain, and the mempool
// too unless every field selected is one that reads the chain alone (chainOnly), so that a page
// of blocks outlives the mempool's changes; an account's page that reads only its own pending
// transactions outlives the changes that name other principals. Documents are named by their
// sha256 (the persisted-query hash for requests that send only that). What a document reads is
// remembered by its shape (its text with the literals left out, scanLiterals), which every text
// differing only in its literals shares, and, for a persisted query, by its hash with its
// literals, since a request may then send the hash alone.
type queryAnswers struct {
	cache     *respcache.Cache
	schema    *ast.Schema
	shapes    *lru.LRU[documentReads] // a document's shape -> what its answers read
	persisted *lru.LRU[knownDocument] // a persisted query's hash -> what its answers read, its literals
}

// knownDocument is what a persisted query's answers read and the literals of its text.
type knownDocument struct {
	reads documentReads
	lits  []literal
}

// rememberedDocuments bounds the shapes, and the persisted queries, whose reads are remembered.
const rememberedDocuments = 1000

func newQueryAnswers(cache *respcache.Cache, schema *ast.Schema) *queryAnswers {
	return &queryAnswers{cache: cache, schema: schema,
		shapes: lru.New[documentReads](rememberedDocuments), persisted: lru.New[knownDocument](rememberedDocuments)}
}

// documentReads is what a document's answers read, when they may be kept. When all they read of
// the mempool is the pending state of the accounts its root account fields name, pending holds
// those fields' principal arguments, else nil.
type documentReads struct {
	cacheable bool
	reads     respcache.Parts
	pending   []pendingArg
}

// pendingArg is the principal argument of a root account field: a variable, or else the
// text's literal at index literal (-1 when it is neither, and so names no principal).
type pendingArg struct {
	variable string
	literal  int
}

// uncacheableRoots are the root fields whose answers are not a function of the chain state.
var uncacheableRoots = map[string]bool{"replicationLag": true}

// chainOnlyTypes are the types every field of which reads the chain alone (mined blocks and
// transactions, their events and payloads), and chainOnlyFields the other fields that do. A
// field in neither is taken to read the mempool as well: a field added later makes answers
// kept for less long until it is listed here, never stale.
var (
	chainOnlyTypes = setOf("Block", "BurnBlock", "PageInfo", "BlockConnection", "BlockEdge", "Microblock",
		"MinerReward", "ExecutionCost", "ClarityValue", "MicroblockTxCount", "Transaction", "TransactionConnection",
		"TransactionEdge", "AccountTransactionConnection", "TransactionsWithTransfersPage", "TransactionWithTransfers",
		"StxTransfer", "FtTransfer", "NftTransfer", "Event", "SmartContractLogEvent", "ContractLogData", "StxLockEvent",
		"StxLockData", "StxAssetEvent", "StxAsset", "FungibleTokenAssetEvent", "FtAsset", "NonFungibleTokenAssetEvent",
		"NftAsset", "TokenTransferPayload", "SmartContractPayload", "ContractCallPayload", "FunctionArg",
		"PoisonMicroblockPayload", "CoinbasePayload", "TenureChangePayload", "PostCondition", "PostConditionPrincipal",
		"PostConditionAsset", "AccountEventConnection", "AccountEventEdge", "BalancePoint", "Contract",
		"ContractEventConnection", "ContractEventEdge")
	chainOnlyFields = setOf("Query.block", "Query.blocks", "Query.burnBlock", "Query.blocksConnection",
		"Query.microblock", "Query.blockByBurnBlockHash", "Query.contract", "Query.contractEvents", "Query.events",
		"Query.account", "Account.principal",
		"Account.transactions", "Account.transactionsWithTransfers", "Account.latestTxId", "Account.events",
		"Account.balanceHistory", "Account.stxBalance",
		// A balance's figures from the chain; its estimated and pending figures count the mempool.
		"StxBalance.balance", "StxBalance.totalSent", "StxBalance.totalReceived", "StxBalance.totalFeesSent",
		"StxBalance.totalMinerRewardsReceived", "StxBalance.lockTxId", "StxBalance.locked", "StxBalance.lockHeight",
		"StxBalance.burnchainLockHeight", "StxBalance.burnchainUnlockHeight",
		// The tip's blocks; mempoolUpdatedAt moves with the mempool.
		"Query.chainTip", "ChainTip.blockHeight", "ChainTip.blockHash", "ChainTip.indexBlockHash",
		"ChainTip.burnBlockHeight", "ChainTip.microblockHash", "ChainTip.microblockSequence")
)

func setOf(names ...string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}

// chainOnly reports whether every field of sel, those under it and those of its fragments
// included (graph.EveryField), reads the chain alone.
func chainOnly(sel ast.SelectionSet) bool {
	return graph.EveryField(sel, func(f *ast.Field) bool {
		if strings.HasPrefix(f.Name, "__") {
			return true
		}
		return f.ObjectDefinition != nil && (chainOnlyTypes[f.ObjectDefinition.Name] || chainOnlyFields[f.ObjectDefinition.Name+"."+f.Name]) &&
			chainOnly(f.SelectionSet)
	})
}

// graphqlRequest is what a GET or POST /graphql request names.
type graphqlRequest struct {
	Query         string          `json:"query"`
	OperationName string          `json:"operationName"`
	Variables     json.RawMessage `json:"variables"`
	Extensions    struct {
		PersistedQuery struct {
			Sha256Hash string `json:"sha256Hash"`
		} `json:"persistedQuery"`
	} `json:"extensions"`
}

func (p *queryAnswers) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Incremental delivery (@defer over multipart or server-sent events) streams its parts.
		accept := r.Header.Get("Accept")
		if strings.Contains(accept, "multipart/") || strings.Contains(accept, "text/event-stream") {
			next.ServeHTTP(w, r)
			return
		}
		req, ok := readGraphQLRequest(r)
		hash, doc, lits, scan := p.document(r.Context(), req)
		if scan != nil {
			r = r.WithContext(withScan(r.Context(), req.Query, scan))
		}
		if !ok || !doc.cacheable {
			next.ServeHTTP(w, r)
			return
		}
		vars, canonical := decodeVariables(req.Variables)
		reads := respcache.Reads{Parts: doc.reads, Pending: pendingNames(doc.pending, lits, vars)}
		at, live := p.cache.Version(reads)
		if !live {
			next.ServeHTTP(w, r)
			return
		}
		key := "graphql\x00" + hash + "\x00" + req.OperationName + "\x00" + canonical
		ans, shared := p.cache.Do(r.Context(), key, reads, at, func() (respcache.Answer, bool) {
			rec := &recorder{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(rec, r)
			ok := rec.status == http.StatusOK && !bytes.Contains(rec.body.Bytes(), []byte(`"errors"`))
			return respcache.Answer{Body: rec.body.Bytes(), ContentType: rec.Header().Get("Content-Type")}, ok
		})
		if shared {
			// With its length the whole answer goes out in one write; without, net/http would
			// chunk a large one and write its parts and its end apart.
			w.Header().Set("Content-Type", ans.ContentType)
			w.Header().Set("Content-Length", strconv.Itoa(len(ans.Body)))
			w.WriteHeader(http.StatusOK)
			w.Write(ans.Body) //nolint:errcheck // client gone
		}
	})
}

// document returns the hash naming req's document, what its answers read and the literals of
// its text, and the scan of its text (nil when the request sends a persisted hash alone, or a
// text that does not lex).
func (p *queryAnswers) document(ctx context.Context, req graphqlRequest) (string, documentReads, []literal, *scanned) {
	hash := req.Extensions.PersistedQuery.Sha256Hash
	if req.Query == "" {
		known, _ := p.persisted.Get(ctx, hash)
		return hash, known.reads, known.lits, nil
	}
	sum := sha256.Sum256([]byte(req.Query))
	if given := hash; given != "" && given != hex.EncodeToString(sum[:]) {
		return "", documentReads{}, nil, nil // gqlgen answers the mismatch with an error
	}
	hash = hex.EncodeToString(sum[:])
	s, ok := scanLiterals(req.Query)
	if !ok {
		return hash, documentReads{}, nil, nil
	}
	reads, found := p.shapes.Get(ctx, s.shape)
	if !found {
		reads = readsOf(p.schema, req.Query, s.lits)
		p.shapes.Add(ctx, s.shape, reads)
	}
	if req.Extensions.PersistedQuery.Sha256Hash != "" {
		// Copies: the literals' texts would otherwise keep the whole request's text alive.
		lits := slices.Clone(s.lits)
		for i := range lits {
			lits[i].text = strings.Clone(lits[i].text)
		}
		p.persisted.Add(ctx, hash, knownDocument{reads: reads, lits: lits})
	}
	return hash, reads, s.lits, &s
}

// readsOf tells whether query's answers may be kept, and which parts of the chain state they
// read: every operation must be a query whose root fields are all named (no fragments at the
// root) and read stored chain data. lits are the literals of query.
func readsOf(schema *ast.Schema, query string, lits []literal) documentReads {
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil || len(doc.Operations) == 0 {
		return documentReads{}
	}
	// The walk gives each field its type's definition, without the validation gqlgen runs
	// anyway: a field the schema lacks has none, and counts as reading the mempool.
	validator.Walk(schema, doc, &validator.Events{})
	var reads respcache.Parts
	var pending []pendingArg
	whole := false // a root field reads more of the mempool than its account's pending state
	for _, op := range doc.Operations {
		if op.Operation != ast.Query {
			return documentReads{}
		}
		for _, sel := range op.SelectionSet {
			f, isField := sel.(*ast.Field)
			switch {
			case !isField || uncacheableRoots[f.Name]:
				return documentReads{}
			case strings.HasPrefix(f.Name, "__"): // the schema, which never changes
			case strings.HasPrefix(f.Name, "brc20"):
				reads |= respcache.Brc20
			case chainOnly(ast.SelectionSet{f}):
				reads |= respcache.Chain
			default:
				reads |= respcache.Chain | respcache.Mempool
				if p := accountPendingOnly(f); p != nil {
					pending = append(pending, principalArg(p, lits))
				} else {
					whole = true
				}
			}
		}
	}
	if whole {
		pending = nil
	}
	return documentReads{cacheable: true, reads: reads, pending: pending}
}

// pendingFields are the fields of an account that read its own pending transactions, and
// nothing of the mempool beyond them: its balance's pending figures, its pending nonces, its
// newest pending transaction, when they select leaves alone (an object under them could be
// another account).
var pendingFields = setOf("Account.stxBalance", "Account.nonces", "Account.latestMempoolTxId")

// accountPendingOnly is the principal argument of a root account field every field of which
// reads the chain alone (chainOnly) or the account's own pending transactions (pendingFields),
// else nil.
func accountPendingOnly(f *ast.Field) *ast.Value {
	arg := f.Arguments.ForName("principal")
	if f.Name != "account" || f.ObjectDefinition == nil || f.ObjectDefinition.Name != "Query" || arg == nil {
		return nil
	}
	ok := graph.EveryField(f.SelectionSet, func(g *ast.Field) bool {
		return chainOnly(ast.SelectionSet{g}) ||
			(g.ObjectDefinition != nil && pendingFields[g.ObjectDefinition.Name+"."+g.Name] && leavesOnly(g.SelectionSet))
	})
	if !ok {
		return nil
	}
	return arg.Value
}

// leavesOnly reports whether sel selects no field with a selection of its own.
func leavesOnly(sel ast.SelectionSet) bool {
	return graph.EveryField(sel, func(f *ast.Field) bool { return len(f.SelectionSet) == 0 })
}

// principalArg is the principal argument v as the literal of lits it is written as, or as the
// variable it names.
func principalArg(v *ast.Value, lits []literal) pendingArg {
	switch {
	case v.Kind == ast.Variable:
		return pendingArg{variable: v.Raw, literal: -1}
	case v.Kind == ast.StringValue && v.Position != nil:
		for i, lit := range lits {
			if lit.start == v.Position.Start {
				return pendingArg{literal: i}
			}
		}
	}
	return pendingArg{literal: -1}
}

// pendingNames are the principals the arguments pending name, with the text's literals lits
// and the request's variables vars; nil (the whole mempool) when one of them is not a string.
func pendingNames(pending []pendingArg, lits []literal, vars map[string]any) []string {
	if pending == nil {
		return nil
	}
	names := make([]string, 0, len(pending))
	for _, a := range pending {
		var name string
		var ok bool
		switch {
		case a.variable != "":
			name, ok = vars[a.variable].(string)
		case a.literal >= 0 && a.literal < len(lits) && lits[a.literal].kind == lexer.String:
			name, ok = lits[a.literal].text, true
		}
		if !ok {
			return nil
		}
		names = append(names, name)
	}
	return names
}

// readGraphQLRequest reads a GET's parameters or a JSON POST's body (putting the body back).
func readGraphQLRequest(r *http.Request) (graphqlRequest, bool) {
	var req graphqlRequest
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		req.Query, req.OperationName = q.Get("query"), q.Get("operationName")
		req.Variables = json.RawMessage(q.Get("variables"))
		if ext := q.Get("extensions"); ext != "" {
			if json.Unmarshal([]byte(ext), &req.Extensions) != nil {
				return req, false
			}
		}
		return req, true
	case http.MethodPost:
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || r.Body == nil {
			return req, false
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20+1))
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		if err != nil || len(body) > 1<<20 || json.Unmarshal(body, &req) != nil {
			return graphqlRequest{}, false
		}
		return req, true
	}
	return req, false
}

// decodeVariables decodes a request's variables once: their values, and their JSON with sorted
// keys, so that equal variables make equal keys (as sent when they are not JSON).
func decodeVariables(raw json.RawMessage) (map[string]any, string) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, "null"
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, string(raw)
	}
	b, _ := json.Marshal(v)
	vars, _ := v.(map[string]any)
	return vars, string(b)
}

// recorder passes a response through and keeps a copy of its status and body.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}
