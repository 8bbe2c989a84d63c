package db

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// MicroblockData is what one /new_microblocks message writes: unconfirmed microblocks built on
// ParentIndexBlockHash and the transactions they carry. Rows are stored at tip+1 with an
// empty index_block_hash until an anchor block accepts or orphans them.
type MicroblockData struct {
	ParentIndexBlockHash []byte
	Microblocks          []*Microblock
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
	Hash      []byte `bun:"microblock_hash"`
	Sequence  int32  `bun:"microblock_sequence"`
	Parent    []byte `bun:"microblock_parent_hash"`
	Anchor    []byte `bun:"parent_index_block_hash"`
	Canonical bool   `bun:"microblock_canonical"`
}

func (w *Writer) unconfirmedStream(ctx context.Context) ([]streamEntry, error) {
	if err := w.flush(ctx); err != nil {
		return nil, err
	}
	var s []streamEntry
	err := w.tx.NewSelect().Model((*Microblock)(nil)).
		Column("microblock_hash", "microblock_sequence", "microblock_parent_hash", "parent_index_block_hash", "microblock_canonical").
		Where("index_block_hash = ''").Scan(ctx, &s)
	return s, err
}

// ApplyMicroblocks stores unconfirmed microblocks that extend the current tip. A microblock
// that replaces part of the stream (a micro-fork) orphans the displaced microblocks and
// returns their transactions to the mempool.
func (w *Writer) ApplyMicroblocks(ctx context.Context, d *MicroblockData) (*MicroblockResult, error) {
	tip, err := w.tip(ctx)
	if err != nil {
		return nil, err
	}
	if !sameHash(d.ParentIndexBlockHash, tip.IndexBlockHash) {
		return &MicroblockResult{Ignored: fmt.Sprintf("parent block %s is not the chain tip %s", Hex(d.ParentIndexBlockHash), Hex(tip.IndexBlockHash))}, nil
	}
	stream, err := w.unconfirmedStream(ctx)
	if err != nil {
		return nil, err
	}
	known := map[string]streamEntry{}
	for _, e := range stream {
		if sameHash(e.Anchor, tip.IndexBlockHash) {
			known[string(e.Hash)] = e
		}
	}
	sort.Slice(d.Microblocks, func(i, j int) bool { return d.Microblocks[i].MicroblockSequence < d.Microblocks[j].MicroblockSequence })
	var fresh []*Microblock
	var orphans [][]byte
	for _, mb := range d.Microblocks {
		if _, ok := known[string(mb.MicroblockHash)]; ok {
			continue // delivered before
		}
		if _, ok := known[string(mb.MicroblockParentHash)]; mb.MicroblockSequence > 0 && !ok {
			return &MicroblockResult{Ignored: fmt.Sprintf("microblock %s (sequence %d) follows a microblock never received", Hex(mb.MicroblockHash), mb.MicroblockSequence)}, nil
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
	w.insertUnconfirmed(tip, fresh, d.Txs)
	if len(orphans) > 0 {
		w.restoreMempool("t.index_block_hash = '' AND t.microblock_hash = ANY(?1)", byteArray(orphans))
	}
	last := fresh[len(fresh)-1]
	w.queue(w.tx.NewUpdate().Model((*ChainTip)(nil)).Where("id").
		Set("microblock_hash = ?, microblock_sequence = ?", last.MicroblockHash, last.MicroblockSequence))
	hashes := make([]string, len(fresh))
	for i, mb := range fresh {
		hashes[i] = Hex(mb.MicroblockHash)
	}
	return &MicroblockResult{Stored: len(fresh), Orphaned: len(orphans)},
		w.notify(ctx, map[string]any{"kind": "microblock", "microblock_hashes": hashes, "block_height": tip.BlockHeight + 1})
}

// insertUnconfirmed stores new microblocks at tip+1 with their transactions.
func (w *Writer) insertUnconfirmed(tip *ChainTip, mbs []*Microblock, txs []*TxData) {
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
		kept = append(kept, t)
		ids = append(ids, t.Tx.TxID)
	}
	rows := collectRows(kept)
	rows.setHeight(height)
	insertAll(w, mbs)
	rows.insert(w)
	w.pruneMempoolTxIDs(ids)
}

func (r *txRows) setHeight(h int32) {
	for _, es := range [][]Event{asEvents(r.stx), asEvents(r.ft), asEvents(r.nft), asEvents(r.logs), asEvents(r.locks)} {
		for _, e := range es {
			e.Position().BlockHeight = h
		}
	}
	for _, e := range r.pox {
		e.BlockHeight = h
	}
	for _, c := range r.contracts {
		c.BlockHeight = h
	}
	for _, p := range r.principals {
		p.BlockHeight = h
	}
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
// built on the block's parent moving to the block. It returns the orphaned microblocks.
func (w *Writer) settleMicroblocks(ctx context.Context, d *BlockData) ([][]byte, error) {
	stream, err := w.unconfirmedStream(ctx)
	if err != nil || len(stream) == 0 {
		return nil, err
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
		}
	}
	if len(acc) > 0 {
		w.deleteUnconfirmedTxs(acc)
		w.queue(w.tx.NewUpdate().Model((*Microblock)(nil)).
			Set("index_block_hash = ?, block_hash = ?, canonical = true, microblock_canonical = true", b.IndexBlockHash, b.BlockHash).
			Where("index_block_hash = '' AND microblock_hash = ANY(?)", byteArray(acc)))
	}
	if len(onParent) > 0 {
		w.setMicroblockFields(onParent, "index_block_hash = ?1, microblock_canonical = false", b.IndexBlockHash)
		w.exec(`WITH t AS (UPDATE txs SET block_hash = ?0 WHERE index_block_hash = ?1 AND NOT microblock_canonical RETURNING 1)
			UPDATE microblocks SET block_hash = ?0 WHERE index_block_hash = ?1`, b.BlockHash, b.IndexBlockHash)
	}
	w.setMicroblockFields(stale, "microblock_canonical = false")
	return append(onParent, stale...), nil
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
