package chainwrite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
)

// MicroblockData is what one /new_microblocks message writes: unconfirmed microblocks built on
// ParentIndexBlockHash and the transactions they carry. Rows are stored at tip+1 with an
// empty index_block_hash until an anchor block accepts or orphans them.
type MicroblockData struct {
	ParentIndexBlockHash []byte
	Microblocks          []*db.Microblock
	Txs                  []*TxData
}

// MicroblockResult says what ApplyMicroblocks did.
type MicroblockResult struct {
	// Ignored explains why nothing was stored (a stream that does not build on the tip, or a
	// gap in it), empty otherwise.
	Ignored  string
	Stored   int // new microblocks
	Orphaned int // unconfirmed microblocks a micro-fork displaced
}

// streamEntry is one unconfirmed microblock already stored.
type streamEntry struct {
	Hash      hexColumn `json:"h"`
	Sequence  int32     `json:"s"`
	Parent    hexColumn `json:"p"`
	Anchor    hexColumn `json:"a"`
	Canonical bool      `json:"c"`
}

// hexColumn reads a bytea that the query rendered with encode(…, 'hex') inside JSON.
type hexColumn []byte

func (h *hexColumn) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := hex.DecodeString(s)
	*h = v
	return err
}

// chainStateSQL reads, in one round trip, what applying a block or microblocks decides on:
// whether the block (?0) is stored already, the tip height, whether its parent (?1 at height
// ?2) is canonical (NULL when unknown) and the unconfirmed microblock stream.
const chainStateSQL = `SELECT
	EXISTS (SELECT 1 FROM blocks WHERE index_block_hash = ?0),
	t.block_height, t.index_block_hash, t.block_hash,
	(SELECT canonical FROM blocks WHERE index_block_hash = ?1 AND block_height = ?2),
	(SELECT coalesce(json_agg(json_build_object('h', encode(microblock_hash, 'hex'), 's', microblock_sequence,
		'p', encode(microblock_parent_hash, 'hex'), 'a', encode(parent_index_block_hash, 'hex'), 'c', microblock_canonical)), '[]')
	FROM microblocks WHERE index_block_hash = '')
FROM chain_tip t`

// chainState is the state chainStateSQL reads.
type chainState struct {
	exists                bool
	tipHeight             int32
	tipIndexHash, tipHash []byte
	parentCanonical       sql.NullBool
	stream                []streamEntry
}

// chainState reads the chain state for applying block b (nil for microblocks), sending the
// queued writes in the same round trip. A block extending the tip that an earlier block of
// the transaction set needs no read: it cannot be stored yet, since every stored block is at
// or below the tip, and its parent, the tip, is canonical.
func (w *Writer) chainState(ctx context.Context, b *db.Block) (*chainState, error) {
	if s := w.state; b != nil && s != nil && b.BlockHeight == s.tipHeight+1 && sameHash(b.ParentIndexBlockHash, s.tipIndexHash) {
		st := *s
		st.parentCanonical = sql.NullBool{Bool: true, Valid: true}
		return &st, nil
	}
	w.state = nil
	var hash, parent []byte
	var height int32
	if b != nil {
		hash, parent, height = b.IndexBlockHash, b.ParentIndexBlockHash, b.BlockHeight-1
	}
	st := new(chainState)
	var stream []byte
	err := w.queryRow(ctx, []any{&st.exists, &st.tipHeight, &st.tipIndexHash, &st.tipHash, &st.parentCanonical, &stream},
		chainStateSQL, hash, parent, height)
	if err != nil {
		return nil, err
	}
	return st, json.Unmarshal(stream, &st.stream)
}

// ApplyMicroblocks stores unconfirmed microblocks that extend the current tip. A microblock
// that replaces part of the stream (a micro-fork) orphans the displaced microblocks and
// returns their transactions to the mempool.
func (w *Writer) ApplyMicroblocks(ctx context.Context, d *MicroblockData) (*MicroblockResult, error) {
	st, err := w.chainState(ctx, nil)
	if err != nil {
		return nil, err
	}
	tip := &db.ChainTip{BlockHeight: st.tipHeight, IndexBlockHash: st.tipIndexHash, BlockHash: st.tipHash}
	if !sameHash(d.ParentIndexBlockHash, tip.IndexBlockHash) {
		return &MicroblockResult{Ignored: fmt.Sprintf("parent block %s is not the chain tip %s", db.Hex(d.ParentIndexBlockHash), db.Hex(tip.IndexBlockHash))}, nil
	}
	stream := st.stream
	known := map[string]streamEntry{}
	for _, e := range stream {
		if sameHash(e.Anchor, tip.IndexBlockHash) {
			known[string(e.Hash)] = e
		}
	}
	sort.Slice(d.Microblocks, func(i, j int) bool { return d.Microblocks[i].MicroblockSequence < d.Microblocks[j].MicroblockSequence })
	var fresh []*db.Microblock
	var orphans [][]byte
	for _, mb := range d.Microblocks {
		if _, ok := known[string(mb.MicroblockHash)]; ok {
			continue // delivered before
		}
		if _, ok := known[string(mb.MicroblockParentHash)]; mb.MicroblockSequence > 0 && !ok {
			return &MicroblockResult{Ignored: fmt.Sprintf("microblock %s (sequence %d) follows a microblock never received", db.Hex(mb.MicroblockHash), mb.MicroblockSequence)}, nil
		}
		for h, e := range known {
			if e.Canonical && e.Sequence >= mb.MicroblockSequence {
				orphans = append(orphans, []byte(h))
				e.Canonical = false
				known[h] = e
			}
		}
		known[string(mb.MicroblockHash)] = streamEntry{Hash: mb.MicroblockHash, Sequence: mb.MicroblockSequence, Canonical: true}
		fresh = append(fresh, mb)
	}
	if len(fresh) == 0 {
		return &MicroblockResult{}, nil
	}
	w.setMicroblockFields(orphans, "microblock_canonical = false")
	if err := w.insertUnconfirmed(tip, fresh, d.Txs); err != nil {
		return nil, err
	}
	if len(orphans) > 0 {
		w.restoreMempool("t.index_block_hash = '' AND t.microblock_hash = ANY(?1)", byteArray(orphans))
	}
	last := fresh[len(fresh)-1]
	w.queue(w.tx.NewUpdate().Model((*db.ChainTip)(nil)).Where("id").
		Set("microblock_hash = ?, microblock_sequence = ?", last.MicroblockHash, last.MicroblockSequence))
	hashes := make([]notices.Hash, len(fresh))
	for i, mb := range fresh {
		hashes[i] = mb.MicroblockHash
	}
	if err := w.notify(notices.Payload{Kind: notices.KindMicroblock, MicroblockHashes: hashes, BlockHeight: tip.BlockHeight + 1}); err != nil {
		return nil, err
	}
	return &MicroblockResult{Stored: len(fresh), Orphaned: len(orphans)}, nil
}

// insertUnconfirmed stores new microblocks at tip+1 with their transactions.
func (w *Writer) insertUnconfirmed(tip *db.ChainTip, mbs []*db.Microblock, txs []*TxData) error {
	height := tip.BlockHeight + 1
	keep := map[string]bool{}
	for _, mb := range mbs {
		mb.BlockHeight, mb.ParentBlockHeight, mb.ParentBlockHash = height, tip.BlockHeight, tip.BlockHash
		mb.IndexBlockHash, mb.BlockHash, mb.ReceiveTime = []byte{}, []byte{}, w.ReceivedAt
		mb.Canonical, mb.MicroblockCanonical = true, true
		keep[string(mb.MicroblockHash)] = true
	}
	var kept []*TxData
	var ids [][]byte
	for _, t := range txs {
		if !keep[string(t.Tx.MicroblockHash)] {
			continue
		}
		t.Tx.BlockHeight, t.Tx.ParentIndexBlockHash, t.Tx.ParentBlockHash = height, tip.IndexBlockHash, tip.BlockHash
		t.Tx.BlockTime = w.ReceivedAt.Unix()
		kept = append(kept, t)
		ids = append(ids, t.Tx.TxID)
	}
	rows := collectRows(kept)
	rows.setHeight(height)
	inserts, err := rows.inserts(w, toStaging)
	if err != nil {
		return err
	}
	w.insertTogether(append([]rowWrite{valuesInsert(rowsInsert(w, mbs))}, inserts...)...)
	w.pruneMempoolTxIDs(ids)
	return nil
}

func (r *txRows) setHeight(h int32) {
	r.eachRow(func(_ *bool, height *int32) { *height = h })
}

// setMicroblockFields updates the unconfirmed rows of the given microblocks in the
// microblocks table and every table of microblock transactions, in one statement.
func (w *Writer) setMicroblockFields(hashes [][]byte, set string, args ...any) {
	if len(hashes) == 0 {
		return
	}
	var q strings.Builder
	q.WriteString("WITH ")
	for i, t := range microblockTables {
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "u_%s AS (UPDATE %s SET %s WHERE index_block_hash = '' AND microblock_hash = ANY(?0) RETURNING 1)", t, t, set)
	}
	fmt.Fprintf(&q, " UPDATE microblocks SET %s WHERE index_block_hash = '' AND microblock_hash = ANY(?0)", set)
	w.exec(q.String(), append([]any{byteArray(hashes)}, args...)...)
}

// settleMicroblocks resolves the unconfirmed stream when a canonical anchor block arrives:
// microblocks it confirms are dropped from the unconfirmed rows (the block's own payload
// carries them, and their microblocks rows move to the block); the rest are orphaned, those
// built on the block's parent moving to the block. It returns the orphaned microblocks and
// the unconfirmed stream that is left, orphaned.
func (w *Writer) settleMicroblocks(d *BlockData, stream []streamEntry) (orphaned [][]byte, left []streamEntry) {
	if len(stream) == 0 {
		return nil, nil
	}
	b := d.Block
	accepted := map[string]bool{}
	for _, mb := range d.Microblocks {
		accepted[string(mb.MicroblockHash)] = true
	}
	byHash := map[string]streamEntry{}
	for _, e := range stream {
		if sameHash(e.Anchor, b.ParentIndexBlockHash) {
			byHash[string(e.Hash)] = e
		}
	}
	// Walk back from the microblock the block names; the bound guards against a cycle.
	for h, n := b.ParentMicroblockHash, 0; n <= len(byHash); n++ {
		e, ok := byHash[string(h)]
		if !ok {
			break
		}
		accepted[string(e.Hash)] = true
		h = e.Parent
	}
	var acc, onParent, stale [][]byte
	for _, e := range stream {
		switch {
		case accepted[string(e.Hash)]:
			acc = append(acc, e.Hash)
		case sameHash(e.Anchor, b.ParentIndexBlockHash):
			onParent = append(onParent, e.Hash)
		default:
			stale = append(stale, e.Hash)
			e.Canonical = false
			left = append(left, e)
		}
	}
	if len(acc) > 0 {
		w.deleteUnconfirmedTxs(acc)
		w.queue(w.tx.NewUpdate().Model((*db.Microblock)(nil)).
			Set("index_block_hash = ?, block_hash = ?, canonical = true, microblock_canonical = true", b.IndexBlockHash, b.BlockHash).
			Where("index_block_hash = '' AND microblock_hash = ANY(?)", byteArray(acc)))
	}
	if len(onParent) > 0 {
		w.setMicroblockFields(onParent, "index_block_hash = ?1, microblock_canonical = false", b.IndexBlockHash)
		// Their transactions take the orphaning block's burn block, as in the reference.
		w.exec(`WITH t AS (UPDATE txs SET block_hash = ?0, burn_block_time = ?2, burn_block_height = ?3
				WHERE index_block_hash = ?1 AND NOT microblock_canonical RETURNING 1)
			UPDATE microblocks SET block_hash = ?0 WHERE index_block_hash = ?1`, b.BlockHash, b.IndexBlockHash, b.BurnBlockTime, b.BurnBlockHeight)
	}
	w.setMicroblockFields(stale, "microblock_canonical = false")
	return append(onParent, stale...), left
}

// deleteUnconfirmedTxs drops the unconfirmed rows of microblocks whose confirmed copies the
// anchor block's payload carries.
func (w *Writer) deleteUnconfirmedTxs(hashes [][]byte) {
	var q strings.Builder
	q.WriteString("WITH ")
	for i, t := range microblockTables[1:] {
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "d_%s AS (DELETE FROM %s WHERE index_block_hash = '' AND microblock_hash = ANY(?0) RETURNING 1)", t, t)
	}
	q.WriteString(" DELETE FROM txs WHERE index_block_hash = '' AND microblock_hash = ANY(?0)")
	w.exec(q.String(), byteArray(hashes))
}
