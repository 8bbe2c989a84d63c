package rest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	genql "github.com/Khan/genqlient/graphql"

	"github.com/stxgraph/stxgraph/resolvers"
)

// multipleRead is a read of GET /extended/v1/tx/multiple.
type multipleRead struct {
	// ids are the requested ids as stored (lower-case hex), requested as given, and respelled
	// those of ids not requested in that spelling.
	ids, requested, respelled       []string
	unanchored, excludeFunctionArgs bool
	eventLimit, eventOffset         int
}

func multipleParams(r *http.Request) (read, error) {
	q := query(r.URL.Query())
	raw := q["tx_id"]
	if len(raw) == 1 && strings.Contains(raw[0], ",") {
		raw = strings.Split(raw[0], ",")
	}
	if len(raw) == 0 {
		return nil, schemaError("querystring must have required property 'tx_id'")
	}
	p := multipleRead{ids: make([]string, len(raw)), requested: raw, respelled: []string{}}
	for i, id := range raw {
		if err := txID("tx_id/"+strconv.Itoa(i), id); err != nil {
			return nil, err
		}
		b, err := hexInput(id)
		if err != nil {
			return nil, err
		}
		p.ids[i] = "0x" + hex.EncodeToString(b)
		if p.ids[i] != id {
			p.respelled = append(p.respelled, p.ids[i])
		}
	}
	var err error
	if p.unanchored, err = q.boolean("unanchored"); err != nil {
		return nil, err
	}
	if p.excludeFunctionArgs, err = q.boolean("exclude_function_args"); err != nil {
		return nil, err
	}
	if p.eventLimit, err = q.limit("event_limit", eventLimit, resolvers.MaxEventLimit); err != nil {
		return nil, err
	}
	p.eventOffset, err = q.offset("event_offset")
	return p, err
}

func (p multipleRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return mempoolETag(ctx, c)
}

// mempoolETag is the ETag of the routes that follow the mempool, read alone.
func mempoolETag(ctx context.Context, c genql.Client) (string, error) {
	d, err := MempoolTag(ctx, c)
	if err != nil {
		return "", err
	}
	return mempoolTag{d.Tip.MempoolUpdatedAt}.etag(), nil
}

// answer renders the lookups as the reference's object keyed by transaction id, contract calls
// described from the called contract's ABI. Found transactions are keyed by their id as stored
// (lower-case hex); an id is then listed as not found, keyed as requested, whenever it is not
// spelled exactly like a found one, so an id given in upper-case hex is answered twice: found
// under its lower-case key and not found under its own. The reference also looks such an id up
// in the mempool, and a mempool record found there (a mined transaction keeps one) replaces the
// mined transaction in the answer.
func (p multipleRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := TransactionsByIds(ctx, c, p.ids, p.respelled, p.unanchored, p.eventLimit, p.eventOffset, p.excludeFunctionArgs, true)
	if err != nil {
		return nil, "", err
	}
	tag := mempoolTag{d.Tip.MempoolUpdatedAt}.etag()
	mempoolRecord := make(map[string]*MempoolTxFields, len(d.Respelled))
	for i := range d.Respelled {
		mempoolRecord[d.Respelled[i].Tx_id] = &d.Respelled[i]
	}
	answers := txLookups{}
	keys := map[string]bool{}
	for i := range d.Lookups {
		l := &d.Lookups[i]
		if !l.Found || l.Result.Typename == "" {
			continue
		}
		tx, err := l.Result.body()
		if err != nil {
			return nil, tag, err
		}
		if keys[tx.TxID] {
			continue
		}
		keys[tx.TxID] = true
		if m, ok := mempoolRecord[tx.TxID]; ok {
			tx = pendingTxBody(m)
		}
		answers = append(answers, txLookup{tx.TxID, true, tx})
	}
	// Not found, in request order.
	for _, id := range p.requested {
		if !keys[id] {
			keys[id] = true
			answers = append(answers, txLookup{id, false, unknownTx{id}})
		}
	}
	body, err := answers.marshal()
	return body, tag, err
}

// foundTx is a transaction a lookup found, mined or pending (the AnyTransaction interface),
// decoded in one pass: both kinds' members decode into one struct, the members they share into
// MinedTxFields, and __typename says which kind's were selected. (genqlient's decoding of the
// interface reads each transaction several times: for its __typename, as its kind, and as each
// fragment of that kind.)
type foundTx struct {
	Typename string `json:"__typename"`
	MinedTxFields
	Events []txEvent `json:"events"`
	pendingReceipt
}

// body renders the found transaction as its kind.
func (t *foundTx) body() (txBody, error) {
	switch t.Typename {
	case "Transaction":
		return minedTxBody(&t.MinedTxFields, t.Events)
	case "MempoolTransaction":
		b := newTxBody(&t.MinedTxFields)
		b.pendingReceipt = &t.pendingReceipt
		return b, nil
	}
	return txBody{}, fmt.Errorf("transaction of unknown type %q", t.Typename)
}

// txLookup is the answer for one id: the transaction, or the id alone when not found.
type txLookup struct {
	key    string
	found  bool
	result any
}

// unknownTx is the result for an id not found: the id as requested.
type unknownTx struct {
	TxID string `json:"tx_id"`
}

type txLookups []txLookup

// marshal renders the answers as one object, keyed in order.
func (ls txLookups) marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, l := range ls {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(l.key))
		b.WriteString(`:{"found":` + strconv.FormatBool(l.found) + `,"result":`)
		if err := enc.Encode(l.result); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
