// Package ingest feeds stacks-node event-observer messages into the database: the HTTP
// observer a node posts to, and the replay and export of the reference API's TSV event log.
// Both go through Ingester.Apply, which applies each message in one database transaction.
package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/chainwrite"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// Event-observer paths.
const (
	PathNewBlock         = "/new_block"
	PathNewBurnBlock     = "/new_burn_block"
	PathNewMempoolTx     = "/new_mempool_tx"
	PathDropMempoolTx    = "/drop_mempool_tx"
	PathNewMicroblocks   = "/new_microblocks"
	PathAttachments      = "/attachments/new"
	PathStackerDBChunks  = "/stackerdb_chunks"
	PathProposalResponse = "/proposal_response"
)

// Ingester applies event-observer messages to the store.
type Ingester struct {
	store *db.Store
	chain *chainwrite.Store
	// applyHook, when set, runs inside each message's transaction after the message's writes
	// and before commit; tests use it to inject a failure.
	applyHook func() error
}

// NewIngester returns an Ingester writing to store.
func NewIngester(store *db.Store) *Ingester {
	return &Ingester{store: store, chain: chainwrite.NewStore(store)}
}

// Message is one event-observer message to apply.
type Message struct {
	Path       string
	Payload    []byte
	ReceivedAt time.Time
	// ID, when set, is the message's id in a replayed request log: the message is applied only
	// if that id is not logged yet, which makes replays restartable.
	ID *int64
	// LogRaw stores the message in the raw request log (always done when ID is set).
	LogRaw bool
	// Relaxed trades commit durability for speed; see chainwrite.IngestOptions.
	Relaxed bool
	// ChainID, when not 0, is the network's chain id: a /new_block or /new_mempool_tx message
	// with transactions of another chain is logged (see warnChainID) and applied anyway.
	ChainID uint32
}

// Apply applies one message in one database transaction. It returns applied=false when a
// replayed message was already applied. Malformed payloads are stxgraph EINVALID errors.
func (in *Ingester) Apply(ctx context.Context, m Message) (applied bool, err error) {
	write, err := decode(m)
	if err != nil {
		return false, err
	}
	err = in.chain.Ingest(ctx, m.ReceivedAt, chainwrite.IngestOptions{Relaxed: m.Relaxed}, func(ctx context.Context, w *chainwrite.Writer) error {
		applied, err = in.applyIn(ctx, w, m, write)
		if err == nil && applied && in.applyHook != nil {
			return in.applyHook()
		}
		return err
	})
	return applied && err == nil, err
}

// applyIn applies one decoded message inside an open ingestion transaction: it logs the
// message when asked to (and skips a replayed one whose id is logged already), then writes
// its rows.
func (in *Ingester) applyIn(ctx context.Context, w *chainwrite.Writer, m Message, write write) (bool, error) {
	w.ReceivedAt = m.ReceivedAt
	if m.ID != nil || m.LogRaw {
		fresh, err := w.LogRequest(ctx, m.ID, m.Path, withoutNUL(m.Payload))
		if err != nil || !fresh {
			return false, err
		}
	}
	return true, write(ctx, w)
}

// A handler decodes a message's payload into the writes that apply it. Decoding needs no
// database: the live observer decodes before it opens the transaction, and a replay decodes
// the next messages while the database applies earlier ones.
// chainID is Message.ChainID, which only the transaction-carrying handlers check.
type handler func(payload []byte, chainID uint32) (write, error)

// write applies a decoded message inside the ingestion transaction.
type write func(ctx context.Context, w *chainwrite.Writer) error

var handlers = map[string]handler{
	PathNewBlock:         decodeBlock,
	PathNewBurnBlock:     decodeBurnBlock,
	PathNewMempoolTx:     decodeMempoolTxs,
	PathDropMempoolTx:    decodeDropMempoolTxs,
	PathNewMicroblocks:   decodeMicroblocks,
	PathAttachments:      decodeAttachments,
	PathStackerDBChunks:  decodeStackerDBChunks,
	PathProposalResponse: decodeProposalResponse,
}

// decode decodes a message for its path.
func decode(m Message) (write, error) {
	h, ok := handlers[m.Path]
	if !ok {
		return nil, stxgraph.Errorf(stxgraph.ENOTFOUND, "no route handler for %s", m.Path)
	}
	return h(m.Payload, m.ChainID)
}

// warnChainID logs one warning for a message whose transactions carry chain ids other than
// want (0: no check): the node runs on another network than stxgraph is configured for. The
// message is not rejected: the node would send it again forever.
func warnChainID(path string, want uint32, ids []uint32) {
	if want == 0 {
		return
	}
	n, first := 0, uint32(0)
	for _, id := range ids {
		if id != want {
			if n == 0 {
				first = id
			}
			n++
		}
	}
	if n > 0 {
		slog.Warn("transactions of another network: is --chain-id (STACKS_CHAIN_ID) right?", "path", path,
			"tx_chain_id", fmt.Sprintf("0x%08x", first), "configured_chain_id", fmt.Sprintf("0x%08x", want),
			"txs", n, "of", len(ids))
	}
}

// malformed is the error of a payload that can never be applied.
func malformed(format string, args ...any) error {
	return stxgraph.Errorf(stxgraph.EINVALID, format, args...)
}

func decodeBlock(payload []byte, chainID uint32) (write, error) {
	var m blockMessage
	if err := decodeJSON(payload, &m); err != nil {
		return nil, err
	}
	d, err := blockData(&m)
	if err != nil {
		return nil, err
	}
	if chainID != 0 {
		// blockData decoded every transaction but the synthetic ones (whose chain id is ours).
		ids := make([]uint32, 0, len(m.Transactions))
		for _, t := range m.Transactions {
			if !isSynthetic(t.RawTx) {
				ids = append(ids, rawChainID(t.RawTx))
			}
		}
		warnChainID(PathNewBlock, chainID, ids)
	}
	return func(ctx context.Context, w *chainwrite.Writer) error {
		res, err := w.ApplyBlock(ctx, d)
		if err == nil && res.Reorged > 0 {
			slog.Info("chain reorganisation", "block", db.Hex(m.IndexBlockHash), "height", m.BlockHeight, "flipped_blocks", res.Reorged)
		}
		return err
	}, nil
}

func decodeMicroblocks(payload []byte, _ uint32) (write, error) {
	var m microblocksMessage
	if err := decodeJSON(payload, &m); err != nil {
		return nil, err
	}
	// The burn block of an unconfirmed microblock's transactions is the one of the anchor block
	// that will confirm it, unknown until then (-1, as the reference stores it); their block time
	// is the time they were received, set when they are stored.
	pos := position{
		IndexBlockHash: []byte{}, BlockHash: []byte{}, BurnBlockHeight: -1, BurnBlockTime: -1,
		ParentBurnBlockTime: m.BurnBlockTimestamp,
	}
	txs, err := buildTxs(pos, m.Transactions, m.Events)
	if err != nil {
		return nil, err
	}
	d := &chainwrite.MicroblockData{ParentIndexBlockHash: m.ParentIndexBlockHash, Txs: txs,
		Microblocks: microblocksOf(m.Transactions, m.ParentIndexBlockHash, m.BurnBlockHash, m.BurnBlockHeight, m.BurnBlockTimestamp)}
	return func(ctx context.Context, w *chainwrite.Writer) error {
		res, err := w.ApplyMicroblocks(ctx, d)
		if err == nil && res.Ignored != "" {
			slog.Warn("ignoring microblocks", "reason", res.Ignored)
		}
		return err
	}, nil
}

// microblocksOf lists the microblocks the transactions were mined in, once each.
func microblocksOf(txs []txMessage, parent, burnHash []byte, burnHeight int32, burnTime int64) []*db.Microblock {
	seen := map[string]bool{}
	var out []*db.Microblock
	for _, t := range txs {
		if t.MicroblockHash == nil || t.MicroblockSequence == nil || seen[string(t.MicroblockHash)] {
			continue
		}
		seen[string(t.MicroblockHash)] = true
		out = append(out, &db.Microblock{
			MicroblockHash: t.MicroblockHash, MicroblockSequence: *t.MicroblockSequence,
			MicroblockParentHash: nonNil(t.MicroblockParentHash), ParentIndexBlockHash: parent,
			ParentBurnBlockHash: nonNil(burnHash), ParentBurnBlockHeight: burnHeight, ParentBurnBlockTime: burnTime,
			Canonical: true, MicroblockCanonical: true,
		})
	}
	return out
}

func decodeBurnBlock(payload []byte, _ uint32) (write, error) {
	var m burnBlockMessage
	if err := decodeJSON(payload, &m); err != nil {
		return nil, err
	}
	d := &chainwrite.BurnBlockData{Block: &db.BurnBlock{
		BurnBlockHash: m.BurnBlockHash, BurnBlockHeight: m.BurnBlockHeight, BurnAmount: m.BurnAmount.orZero(),
		ConsensusHash: m.ConsensusHash, ParentBurnBlockHash: m.ParentBurnBlockHash,
	}}
	for i, r := range m.RewardRecipients {
		d.Rewards = append(d.Rewards, &db.BurnchainReward{BurnBlockHash: m.BurnBlockHash, BurnBlockHeight: m.BurnBlockHeight,
			RewardIndex: int32(i), Recipient: r.Recipient, Amount: r.Amt.orZero()})
	}
	for i, a := range m.RewardSlotHolders {
		d.SlotHolders = append(d.SlotHolders, &db.RewardSlotHolder{BurnBlockHash: m.BurnBlockHash,
			BurnBlockHeight: m.BurnBlockHeight, SlotIndex: int32(i), Address: a})
	}
	return func(ctx context.Context, w *chainwrite.Writer) error { return w.ApplyBurnBlock(ctx, d) }, nil
}

func decodeMempoolTxs(payload []byte, chainID uint32) (write, error) {
	var raws []hexBytes
	if err := decodeJSON(payload, &raws); err != nil {
		return nil, err
	}
	rows := make([]*db.MempoolTx, 0, len(raws))
	ids := make([]uint32, 0, len(raws))
	for _, raw := range raws {
		t, err := tx.Decode(raw)
		if err != nil {
			// The node accepted it, so the bytes are valid for the node; a transaction this
			// decoder cannot read must not block the rest of the message.
			slog.Warn("skipping undecodable mempool transaction", "err", err, "raw_tx", truncate(db.Hex(raw)))
			continue
		}
		id := t.TxID()
		rows = append(rows, &db.MempoolTx{TxID: id[:], TxFields: txFields(raw, t)})
		ids = append(ids, t.ChainID)
	}
	warnChainID(PathNewMempoolTx, chainID, ids)
	return func(ctx context.Context, w *chainwrite.Writer) error { return w.InsertMempoolTxs(ctx, rows) }, nil
}

var dropReasons = map[string]int16{
	"ReplaceByFee":        db.TxStatusDroppedReplaceByFee,
	"ReplaceAcrossFork":   db.TxStatusDroppedReplaceAcrossFork,
	"TooExpensive":        db.TxStatusDroppedTooExpensive,
	"StaleGarbageCollect": db.TxStatusDroppedStaleGC,
	"Problematic":         db.TxStatusDroppedProblematic,
}

func decodeDropMempoolTxs(payload []byte, _ uint32) (write, error) {
	var m dropMempoolMessage
	if err := decodeJSON(payload, &m); err != nil {
		return nil, err
	}
	status, ok := dropReasons[m.Reason]
	if !ok {
		return nil, malformed("unknown drop reason %q", m.Reason)
	}
	ids := make([][]byte, len(m.DroppedTxids))
	for i, id := range m.DroppedTxids {
		ids[i] = id
	}
	var replacedBy []byte
	if len(m.NewTxid) > 0 {
		replacedBy = m.NewTxid
	}
	return func(ctx context.Context, w *chainwrite.Writer) error {
		return w.DropMempoolTxs(ctx, ids, status, replacedBy)
	}, nil
}

// decodeAttachments stores the attachments of the BNS contract (zonefiles); others are only
// acknowledged, as by the reference.
func decodeAttachments(payload []byte, _ uint32) (write, error) {
	var ms []attachmentMessage
	if err := decodeJSON(payload, &ms); err != nil {
		return nil, err
	}
	var rows []*chainwrite.Attachment
	for _, a := range ms {
		if a.ContractID != bootAddressMainnet+".bns" && a.ContractID != bootAddressTestnet+".bns" {
			continue
		}
		var height int32
		fmt.Sscan(a.BlockHeight.orZero(), &height)
		rows = append(rows, &chainwrite.Attachment{TxID: nonNil(a.TxID), IndexBlockHash: nonNil(a.IndexBlockHash),
			AttachmentIndex: a.AttachmentIndex, BlockHeight: height, ContractID: a.ContractID,
			ContentHash: nonNil(a.ContentHash), Metadata: nonNil(a.Metadata), Content: nonNil(a.Content)})
	}
	return func(ctx context.Context, w *chainwrite.Writer) error { return w.StoreAttachments(ctx, rows) }, nil
}

func decodeStackerDBChunks(payload []byte, _ uint32) (write, error) {
	var m struct {
		ContractID json.RawMessage `json:"contract_id"`
	}
	if err := decodeJSON(payload, &m); err != nil {
		return nil, err
	}
	return func(ctx context.Context, w *chainwrite.Writer) error {
		return w.StoreStackerDBChunks(ctx, stackerDBContract(m.ContractID), payload)
	}, nil
}

// stackerDBContract reads the chunk's contract id, a string or the node's
// {"issuer": [version, [hash bytes]], "name": …} form.
func stackerDBContract(raw json.RawMessage) *string {
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return &s
	}
	var c struct {
		Issuer []json.RawMessage `json:"issuer"`
		Name   string            `json:"name"`
	}
	if json.Unmarshal(raw, &c) != nil || len(c.Issuer) != 2 || c.Name == "" {
		return nil
	}
	var version byte
	var hash []byte
	if json.Unmarshal(c.Issuer[0], &version) != nil || json.Unmarshal(c.Issuer[1], &hash) != nil {
		var ints []int
		if json.Unmarshal(c.Issuer[1], &ints) != nil || len(ints) != 20 {
			return nil
		}
		hash = make([]byte, 20)
		for i, v := range ints {
			hash[i] = byte(v)
		}
	}
	id := strings.Join([]string{c32Address(version, hash), c.Name}, ".")
	return &id
}

func decodeProposalResponse(payload []byte, _ uint32) (write, error) {
	if !json.Valid(payload) {
		return nil, malformed("invalid JSON payload")
	}
	return func(ctx context.Context, w *chainwrite.Writer) error { return w.StoreProposalResponse(ctx, payload) }, nil
}

// withoutNUL removes NUL characters from the payload's strings: jsonb cannot hold \u0000
// (the node sends it inside some vm_error texts), and the reference strips it too.
func withoutNUL(payload []byte) []byte {
	if !bytes.Contains(payload, []byte(`\u0000`)) {
		return payload
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return payload
	}
	out, err := json.Marshal(stripNUL(v))
	if err != nil {
		return payload
	}
	return out
}

func stripNUL(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, "\x00", "")
	case []any:
		for i := range x {
			x[i] = stripNUL(x[i])
		}
	case map[string]any:
		for k, e := range x {
			x[k] = stripNUL(e)
		}
	}
	return v
}
