package rest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"

	genql "github.com/Khan/genqlient/graphql"
	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/resolvers"
	"github.com/stxgraph/stxgraph/respcache"
	"github.com/stxgraph/stxgraph/stacks/c32"
)

// The reference's v2 address, contract status and mempool fee paths.
func v2AddressRoutes() []route {
	return []route{
		// The mined transactions and an ETag without the pending ones, as for
		// transactions_with_transfers.
		{path: "/extended/v2/addresses/{address}/transactions", reads: respcache.Chain, parse: v2AddressTxsParams},
		{
			path: "/extended/v2/addresses/{address}/transactions/{tx_id}/events", reads: respcache.Chain,
			parse: v2AddressEventsParams, pathTag: tipPathTag,
		},
		{path: "/extended/v2/addresses/{principal}/balances/stx", reads: respcache.Chain | respcache.Mempool, parse: v2StxBalanceParams},
		{path: "/extended/v2/smart-contracts/status", reads: respcache.Chain | respcache.Mempool, parse: v2ContractStatusParams},
		{
			path: "/extended/v2/mempool/fees", reads: respcache.Mempool,
			parse: func(*http.Request) (read, error) { return mempoolFeesRead{}, nil },
		},
	}
}

// v2Address reads the address path parameter (a standard or contract principal).
func v2Address(r *http.Request) (string, error) {
	a := mux.Vars(r)["address"]
	if !principalPrefix.MatchString(a) {
		return "", principalSchemaError("params/address")
	}
	return a, nil
}

// addressEventsRead is a read of GET /extended/v2/addresses/{address}/transactions/{tx_id}/events.
type addressEventsRead struct {
	principal, txID string
	// valid is whether the principal can occur at all (its checksum holds).
	valid         bool
	limit, offset int
}

func v2AddressEventsParams(r *http.Request) (read, error) {
	a, err := v2Address(r)
	if err != nil {
		return nil, err
	}
	id := mux.Vars(r)["tx_id"]
	if !txIDPattern.MatchString(id) {
		return nil, schemaError(`params/tx_id must match pattern "^(0x)?[a-fA-F0-9]{64}$"`)
	}
	txID, err := hexInput(id)
	if err != nil {
		return nil, err
	}
	q := query(r.URL.Query())
	p := addressEventsRead{principal: a, txID: "0x" + hex.EncodeToString(txID), valid: c32.ValidPrincipalLenient(a)}
	if p.limit, err = q.limit("limit", txLimit, resolvers.MaxAccountTxsPage); err != nil {
		return nil, err
	}
	p.offset, err = q.offset("offset")
	return p, err
}

func (p addressEventsRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

// answer renders the principal's events in the transaction; for an address that cannot occur,
// an empty page when the transaction is mined, else not found.
func (p addressEventsRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2AddressTransactionEvents(ctx, c, p.principal, p.valid, p.txID, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	tag := tipFieldsTag(&d.Tip)
	if !p.valid && !minedLookup(d.Lookup) {
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, "Transaction not found")
	}
	events := d.Account.Page // empty when the principal cannot occur
	results := make([]addressEvent, len(events.Results))
	for i, e := range events.Results {
		results[i] = newAddressEvent(e)
	}
	body, err := marshal(page[addressEvent]{Limit: p.limit, Offset: p.offset, Total: &events.Total, Results: results})
	return body, tag, err
}

// minedLookup is whether the one transaction looked up is a mined one.
func minedLookup(lookups []V2AddressTransactionEventsLookupTransactionLookup) bool {
	return len(lookups) > 0 && lookups[0].Result.Typename == "Transaction"
}

// txKind is the kind of a transaction a lookup found ("" when none was).
type txKind struct {
	Typename string `json:"__typename"`
}

// clarityValue is a Clarity value as the reference renders it.
type clarityValue struct {
	Hex  string `json:"hex"`
	Repr string `json:"repr"`
}

// The reference's shapes of an address event, per asset class, in its key order; a missing
// sender (mint) or recipient (burn) is left out.
type (
	stxEventData struct {
		Type      AssetEventType `json:"type"`
		Amount    string         `json:"amount"`
		Sender    *string        `json:"sender,omitempty"`
		Recipient *string        `json:"recipient,omitempty"`
	}
	ftEventData struct {
		Type            AssetEventType `json:"type"`
		Amount          string         `json:"amount"`
		AssetIdentifier string         `json:"asset_identifier"`
		Sender          *string        `json:"sender,omitempty"`
		Recipient       *string        `json:"recipient,omitempty"`
	}
	nftEventData struct {
		Type            AssetEventType `json:"type"`
		AssetIdentifier string         `json:"asset_identifier"`
		Value           *clarityValue  `json:"value"`
		Sender          *string        `json:"sender,omitempty"`
		Recipient       *string        `json:"recipient,omitempty"`
	}
	addressEvent struct {
		Type       AssetClass `json:"type"`
		EventIndex int        `json:"event_index"`
		Data       any        `json:"data"`
	}
)

func newAddressEvent(e V2AddressTransactionEventsAccountPageAccountAssetEventPageResultsAccountAssetEvent) addressEvent {
	out := addressEvent{Type: e.Asset, EventIndex: e.EventIndex}
	switch e.Asset {
	case AssetClassStx:
		out.Data = stxEventData{Type: e.Type, Amount: deref(e.Amount), Sender: e.Sender, Recipient: e.Recipient}
	case AssetClassFt:
		out.Data = ftEventData{Type: e.Type, Amount: deref(e.Amount), AssetIdentifier: deref(e.AssetIdentifier), Sender: e.Sender, Recipient: e.Recipient}
	default:
		out.Data = nftEventData{Type: e.Type, AssetIdentifier: deref(e.AssetIdentifier), Value: (*clarityValue)(e.Value), Sender: e.Sender, Recipient: e.Recipient}
	}
	return out
}

// v2StxBalanceRead is a read of GET /extended/v2/addresses/{principal}/balances/stx.
type v2StxBalanceRead struct {
	principal      string
	includeMempool bool
}

func v2StxBalanceParams(r *http.Request) (read, error) {
	p := mux.Vars(r)["principal"]
	if !principalPrefix.MatchString(p) {
		return nil, principalSchemaError("params/principal")
	}
	include, err := query(r.URL.Query()).boolean("include_mempool")
	if err != nil {
		return nil, err
	}
	return v2StxBalanceRead{principal: p, includeMempool: include}, nil
}

// pending: the balance counts the principal's own pending transactions.
func (p v2StxBalanceRead) pending() []string { return []string{p.principal} }

func (p v2StxBalanceRead) etag(ctx context.Context, c genql.Client) (string, error) {
	d, err := V2PrincipalStxBalanceTag(ctx, c, p.principal, p.includeMempool)
	if err != nil {
		return "", err
	}
	a := d.Account
	return p.tag(&d.Tip, a.LatestTxId, a.LatestMempoolTxId, lockTag{a.Balance.Locked, a.Balance.Burnchain_unlock_height}), nil
}

// tag follows the principal (its transactions, pending ones and lock) when the mempool is asked
// for, else the chain tip, as the reference does.
func (p v2StxBalanceRead) tag(tip tipFields, latest, latestMempool *string, lock lockTag) string {
	if p.includeMempool {
		return principalTag{latest, latestMempool, &lock}.etag(true)
	}
	return tipFieldsTag(tip)
}

// answer renders the balance with the pox-4 lock, dated at the tip block's burn height, as the
// reference's v2 balance reads it.
func (p v2StxBalanceRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2PrincipalStxBalance(ctx, c, p.principal, p.includeMempool)
	if err != nil {
		return nil, "", err
	}
	a, b := d.Account, d.Account.Balance
	tag := p.tag(&d.Tip, a.LatestTxId, a.LatestMempoolTxId, lockTag{b.Locked, b.Burnchain_unlock_height})
	out := stxBalance{Balance: b.Balance, TotalMinerRewardsReceived: b.Total_miner_rewards_received, Locked: "0",
		EstimatedBalance: b.Estimated_balance, PendingBalanceInbound: b.Pending_balance_inbound, PendingBalanceOutbound: b.Pending_balance_outbound}
	if l := a.Lock; l != nil {
		out.LockTxID, out.Locked, out.LockHeight, out.BurnchainUnlockHeight = l.TxId, l.Locked, l.BlockHeight, l.BurnchainUnlockHeight
		if d.TipBlock != nil {
			out.BurnchainLockHeight = d.TipBlock.BurnBlockHeight
		}
	}
	body, err := marshal(out)
	return body, tag, err
}

// stxBalance is the v2 STX balance in the reference's key order; the mempool figures only when
// asked for.
type stxBalance struct {
	Balance                   string  `json:"balance"`
	TotalMinerRewardsReceived string  `json:"total_miner_rewards_received"`
	LockTxID                  string  `json:"lock_tx_id"`
	Locked                    string  `json:"locked"`
	LockHeight                int     `json:"lock_height"`
	BurnchainLockHeight       int     `json:"burnchain_lock_height"`
	BurnchainUnlockHeight     int     `json:"burnchain_unlock_height"`
	EstimatedBalance          *string `json:"estimated_balance,omitempty"`
	PendingBalanceInbound     *string `json:"pending_balance_inbound,omitempty"`
	PendingBalanceOutbound    *string `json:"pending_balance_outbound,omitempty"`
}

// contractIDPattern is the reference's request-schema pattern for a contract id (its "." is
// any character).
var contractIDPattern = regexp.MustCompile(`^[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{28,41}.[a-zA-Z]([a-zA-Z0-9]|[-_]){0,39}$`)

// contractStatusRead is a read of GET /extended/v2/smart-contracts/status.
type contractStatusRead struct{ ids []string }

func v2ContractStatusParams(r *http.Request) (read, error) {
	ids := r.URL.Query()["contract_id"]
	if len(ids) == 0 {
		return nil, schemaError("querystring must have required property 'contract_id'")
	}
	for i, id := range ids {
		if !contractIDPattern.MatchString(id) {
			return nil, contractIDSchemaError(i, len(ids))
		}
	}
	return contractStatusRead{ids}, nil
}

// pending: a contract's pending state is its pending deploy (mempool notices name the contract
// a deploy makes).
func (p contractStatusRead) pending() []string { return p.ids }

// contractIDSchemaError is the reference's message for the contract id at index i of n given
// that does not match its pattern. Its schema takes a list or a single id: the list fails at
// that index, and the single id fails its pattern (one id, unwrapped) or its type (several).
func contractIDSchemaError(i, n int) error {
	single := fmt.Sprintf(`querystring/contract_id must match pattern "%s"`, contractIDPattern)
	if n > 1 {
		single = "querystring/contract_id must be string"
	}
	return schemaError(`querystring/contract_id/%d must match pattern "%s", %s, querystring/contract_id must match a schema in anyOf`,
		i, contractIDPattern, single)
}

func (p contractStatusRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

// answer renders the statuses as an object keyed by contract id, in the order the operation
// lists them.
func (p contractStatusRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2ContractStatuses(ctx, c, p.ids)
	if err != nil {
		return nil, "", err
	}
	body, err := contractStatuses(d.Statuses).MarshalJSON()
	return body, tipFieldsTag(&d.Tip), err
}

// contractStatuses renders as the reference's object keyed by contract id.
type contractStatuses []V2ContractStatusesStatusesContractStatus

// contractStatusResult is a found contract's deploy: its status and transaction are known.
type contractStatusResult struct {
	Status      *TxStatus `json:"status"`
	TxID        *string   `json:"tx_id"`
	ContractID  string    `json:"contract_id"`
	BlockHeight *int      `json:"block_height,omitempty"`
}

func (statuses contractStatuses) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, s := range statuses {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := marshal(s.ContractId)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		if !s.Found {
			b.WriteString(`:{"found":false}`)
			continue
		}
		r, err := marshal(contractStatusResult{Status: s.Status, TxID: s.TxId, ContractID: s.ContractId, BlockHeight: s.BlockHeight})
		if err != nil {
			return nil, err
		}
		b.WriteString(`:{"found":true,"result":`)
		b.Write(r)
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// mempoolFeesRead is a read of GET /extended/v2/mempool/fees.
type mempoolFeesRead struct{}

func (mempoolFeesRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return mempoolETag(ctx, c)
}

func (mempoolFeesRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2MempoolFees(ctx, c)
	if err != nil {
		return nil, "", err
	}
	f := d.Fees
	fees := mempoolFees{All: *newFeePriorities(f.All.FeePriorityFields)}
	if t := f.Token_transfer; t != nil {
		fees.TokenTransfer = newFeePriorities(t.FeePriorityFields)
	}
	if t := f.Contract_call; t != nil {
		fees.ContractCall = newFeePriorities(t.FeePriorityFields)
	}
	if t := f.Smart_contract; t != nil {
		fees.SmartContract = newFeePriorities(t.FeePriorityFields)
	}
	body, err := marshal(fees)
	return body, mempoolTag{d.Tip.MempoolUpdatedAt}.etag(), err
}

// mempoolFees are the fee priorities overall and of each kind with pending transactions.
type mempoolFees struct {
	All           feePriorities  `json:"all"`
	TokenTransfer *feePriorities `json:"token_transfer,omitempty"`
	ContractCall  *feePriorities `json:"contract_call,omitempty"`
	SmartContract *feePriorities `json:"smart_contract,omitempty"`
}

// feePriorities are a kind's fee priorities; the operation carries them as decimal strings
// and the reference sends numbers.
type feePriorities struct {
	No     json.Number `json:"no_priority"`
	Low    json.Number `json:"low_priority"`
	Medium json.Number `json:"medium_priority"`
	High   json.Number `json:"high_priority"`
}

func newFeePriorities(f FeePriorityFields) *feePriorities {
	return &feePriorities{json.Number(f.No_priority), json.Number(f.Low_priority), json.Number(f.Medium_priority), json.Number(f.High_priority)}
}
