package chainwrite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/stacks/roles"
)

// BlockData is everything one /new_block message writes. Rows arrive marked canonical and
// microblock-canonical; ApplyBlock decides what they really are.
type BlockData struct {
	Block *db.Block
	// Microblocks are the microblocks this block confirms, as its transactions name them.
	Microblocks  []*db.Microblock
	Txs          []*TxData
	MinerRewards []*db.MinerReward
	// PoxUnlockHeights are pox_v1..v4_unlock_height when the message carries them.
	PoxUnlockHeights [4]*int32
	// PoxSet is the reward set the block announces, if any.
	PoxSet *db.PoxSet
}

// TxData is one mined transaction with the rows that hang off it.
type TxData struct {
	Tx             *db.Tx
	StxEvents      []*db.StxEvent
	FtEvents       []*db.FtEvent
	NftEvents      []*db.NftEvent
	ContractLogs   []*db.ContractLog
	StxLockEvents  []*db.StxLockEvent
	PoxEvents      []*db.PoxEvent
	SmartContracts []*db.SmartContract
	// Principals take part in the transaction (principal_txs rows).
	Principals []roles.Principal
}

// EventKinds is the set of the kinds of the transaction's events: the tables that store them.
func (d *TxData) EventKinds() db.EventKinds {
	var kinds []db.EventType
	for _, k := range []struct {
		kind db.EventType
		rows int
	}{
		{db.EventSmartContractLog, len(d.ContractLogs)}, {db.EventStxLock, len(d.StxLockEvents)},
		{db.EventStxAsset, len(d.StxEvents)}, {db.EventFungibleTokenAsset, len(d.FtEvents)},
		{db.EventNonFungibleTokenAsset, len(d.NftEvents)},
	} {
		if k.rows > 0 {
			kinds = append(kinds, k.kind)
		}
	}
	return db.KindsOf(kinds)
}

// BlockResult says what ApplyBlock did.
type BlockResult struct {
	Duplicate bool // the block was already stored: nothing changed
	Canonical bool
	// Reorged lists the blocks whose canonical flag flipped.
	Reorged int
}

// blockTables are the tables whose rows belong to a block by index_block_hash and carry a
// canonical flag that fork handling flips.
var blockTables = []string{
	"blocks", "microblocks", "txs", "stx_events", "ft_events", "nft_events", "contract_logs",
	"stx_lock_events", "pox_events", "miner_rewards", "smart_contracts", "principal_txs", "pox_cycles", "pox_signers",
}

// microblockTables are the tables holding rows of transactions mined in microblocks.
var microblockTables = []string{
	"txs", "stx_events", "ft_events", "nft_events", "contract_logs", "stx_lock_events",
	"pox_events", "smart_contracts", "principal_txs",
}

// ApplyBlock stores a block as the reference does: canonical when above the tip; a block above
// the tip whose parent is on an orphaned branch restores that branch first; the microblocks it
// confirms are accepted and the rest of the unconfirmed stream orphaned.
func (w *Writer) ApplyBlock(ctx context.Context, d *BlockData) (*BlockResult, error) {
	b := d.Block
	st, err := w.chainState(ctx, b)
	if err != nil || st.exists {
		return &BlockResult{Duplicate: st != nil && st.exists}, err
	}
	res := &BlockResult{Canonical: b.BlockHeight > st.tipHeight}
	if b.BlockHeight > 1 && !st.parentCanonical.Valid {
		return nil, fmt.Errorf("block %s at height %d: parent block %s is unknown",
			db.Hex(b.IndexBlockHash), b.BlockHeight, db.Hex(b.ParentIndexBlockHash))
	}
	// The counted rows grow in height order: the totals and positions of a block are numbered
	// after those of every counted block, which a canonical block is above only if it extends
	// the tip (its parent is stored at the height below it, no block above the tip).
	if res.Canonical && b.BlockHeight != st.tipHeight+1 {
		return nil, fmt.Errorf("block %s at height %d is canonical above a tip at height %d: blocks are counted in height order",
			db.Hex(b.IndexBlockHash), b.BlockHeight, st.tipHeight)
	}
	if res.Canonical && b.BlockHeight > 1 && !st.parentCanonical.Bool {
		if res.Reorged, err = w.restoreOrphanedChain(ctx, b.ParentIndexBlockHash, b.BlockHeight-1); err != nil {
			return nil, err
		}
	}
	if b.BlockHeight == 1 {
		w.adoptBlockZero(b)
	}
	b.Canonical = res.Canonical
	var orphaned [][]byte
	if res.Canonical {
		var left []streamEntry
		orphaned, left = w.settleMicroblocks(d, st.stream)
		w.state = &chainState{tipHeight: b.BlockHeight, tipIndexHash: b.IndexBlockHash, tipHash: b.BlockHash, stream: left}
	}
	if err := w.insertBlockRows(d); err != nil {
		return nil, err
	}
	if len(orphaned) > 0 {
		w.restoreMempool("t.microblock_hash = ANY(?1) AND NOT t.microblock_canonical", byteArray(orphaned))
	}
	if res.Canonical {
		w.totals = append(w.totals, b.IndexBlockHash)
		w.pruneMempool([][]byte{b.IndexBlockHash}, b)
		w.setPoxUnlockHeights(d.PoxUnlockHeights)
	}
	if err := w.notify(blockNotice(b)); err != nil {
		return nil, err
	}
	return res, w.sendAheadOnceLarge(ctx)
}

func blockNotice(b *db.Block) notices.Payload {
	return notices.Payload{Kind: notices.KindBlock, IndexBlockHash: b.IndexBlockHash, BlockHeight: b.BlockHeight, Canonical: b.Canonical}
}

// insertBlockRows writes the block and its rows in one multi-row statement per table.
func (w *Writer) insertBlockRows(d *BlockData) error {
	b := d.Block
	rows := collectRows(d.Txs)
	for _, mb := range d.Microblocks {
		mb.Canonical = b.Canonical
	}
	for _, r := range d.MinerRewards {
		r.Canonical = b.Canonical
	}
	if !b.Canonical {
		rows.markNonCanonical()
	}
	// The block is new (ApplyBlock returned for a stored one), so none of its rows is stored, and
	// the statements queued before them name other blocks only; those that read the rows of any
	// block make insertRows stage them (see toTable). TestCopyAndValuesStoreTheSame and
	// TestBlockRowsCopiedAheadOfEarlierMempoolWrites check that copying stores what VALUES do.
	inserts, err := rows.inserts(w, toTable)
	if err != nil {
		return err
	}
	cycles, signers := poxSetRows(b, d.PoxSet)
	signersInsert, err := insertRows(w, signers, toTable)
	if err != nil {
		return err
	}
	w.insertTogether(append([]rowWrite{valuesInsert(w.tx.NewInsert().Model(b)), valuesInsert(rowsInsert(w, d.Microblocks)),
		valuesInsert(rowsInsert(w, d.MinerRewards)), valuesInsert(rowsInsert(w, cycles)), signersInsert}, inserts...)...)
	return nil
}

// txRows are the rows of a set of transactions, grouped by table.
type txRows struct {
	txs        []*db.Tx
	stx        []*db.StxEvent
	ft         []*db.FtEvent
	nft        []*db.NftEvent
	logs       []*db.ContractLog
	locks      []*db.StxLockEvent
	pox        []*db.PoxEvent
	contracts  []*db.SmartContract
	principals []*db.PrincipalTx
}

func collectRows(txs []*TxData) *txRows {
	r := new(txRows)
	for _, t := range txs {
		r.txs = append(r.txs, t.Tx)
		r.stx = append(r.stx, t.StxEvents...)
		r.ft = append(r.ft, t.FtEvents...)
		r.nft = append(r.nft, t.NftEvents...)
		r.logs = append(r.logs, t.ContractLogs...)
		r.locks = append(r.locks, t.StxLockEvents...)
		r.pox = append(r.pox, t.PoxEvents...)
		r.contracts = append(r.contracts, t.SmartContracts...)
		for _, p := range t.Principals {
			r.principals = append(r.principals, &db.PrincipalTx{Roles: int16(p.Roles),
				Principal: p.Principal, TxID: t.Tx.TxID, IndexBlockHash: t.Tx.IndexBlockHash, MicroblockHash: t.Tx.MicroblockHash,
				BlockHeight: t.Tx.BlockHeight, MicroblockSequence: t.Tx.MicroblockSequence, TxIndex: t.Tx.TxIndex,
				Canonical: t.Tx.Canonical, MicroblockCanonical: t.Tx.MicroblockCanonical,
			})
		}
	}
	return r
}

func (r *txRows) markNonCanonical() {
	r.eachRow(func(canonical *bool, _ *int32) { *canonical = false })
}

// eachRow calls fn with the canonical flag and block height of every row of the message.
func (r *txRows) eachRow(fn func(canonical *bool, height *int32)) {
	for _, t := range r.txs {
		fn(&t.Canonical, &t.BlockHeight)
	}
	for _, es := range [][]db.Event{asEvents(r.stx), asEvents(r.ft), asEvents(r.nft), asEvents(r.logs), asEvents(r.locks)} {
		for _, e := range es {
			fn(&e.Position().Canonical, &e.Position().BlockHeight)
		}
	}
	for _, e := range r.pox {
		fn(&e.Canonical, &e.BlockHeight)
	}
	for _, c := range r.contracts {
		fn(&c.Canonical, &c.BlockHeight)
	}
	for _, p := range r.principals {
		fn(&p.Canonical, &p.BlockHeight)
	}
}

func asEvents[T db.Event](es []T) []db.Event {
	out := make([]db.Event, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// inserts are the rows' inserts, one per table (empty for a table without rows or whose rows
// are copied straight into it).
func (r *txRows) inserts(w *Writer, mode copyMode) ([]rowWrite, error) {
	var errs []error
	add := func(q rowWrite, err error) rowWrite {
		errs = append(errs, err)
		return q
	}
	qs := []rowWrite{add(insertRows(w, r.txs, mode)), add(insertRows(w, r.stx, mode)), add(insertRows(w, r.ft, mode)),
		add(insertRows(w, r.nft, mode)), add(insertRows(w, r.logs, mode)), add(insertRows(w, r.locks, mode)),
		add(insertRows(w, r.pox, mode)), add(insertRows(w, r.contracts, mode)), add(insertRows(w, r.principals, mode))}
	return qs, errors.Join(errs...)
}

// setPoxUnlockHeights stores the forced-unlock heights the node reports.
func (w *Writer) setPoxUnlockHeights(hs [4]*int32) {
	q := w.tx.NewUpdate().Model((*db.PoxState)(nil)).Where("id")
	set := false
	for i, h := range hs {
		if h != nil {
			q = q.Set(fmt.Sprintf("pox_v%d_unlock_height = ?", i+1), *h)
			set = true
		}
	}
	if set {
		w.queue(q)
	}
}

// restoreOrphanedChain makes the branch ending at hash, at the tip's height, canonical: it walks
// back to the fork point, flipping every block on the branch to canonical and every other block
// at those heights to non-canonical, then fixes the totals and the mempool. The blocks it stops
// counting are therefore the top of the counted chain, every height from the tip down to the
// fork point, as subtracting totals and dropping the positions past the new counts requires;
// then it counts the branch, in its place.
func (w *Writer) restoreOrphanedChain(ctx context.Context, hash []byte, tipHeight int32) (int, error) {
	var toCanonical, toOrphan [][]byte
	var reorg struct{ RolledBack, Restored []notices.ReorgBlock }
	if err := w.flush(ctx); err != nil {
		return 0, err
	}
	for height := tipHeight; ; height-- {
		b := new(db.Block)
		err := w.tx.NewSelect().Model(b).Column("index_block_hash", "parent_index_block_hash", "block_height", "canonical").
			Where("index_block_hash = ?", hash).Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && b.Canonical) {
			break
		}
		if err != nil {
			return 0, err
		}
		if b.BlockHeight != height {
			return 0, fmt.Errorf("block %s of the branch to restore is at height %d, not %d: counting stops from the top",
				db.Hex(b.IndexBlockHash), b.BlockHeight, height)
		}
		toCanonical = append(toCanonical, b.IndexBlockHash)
		reorg.Restored = append(reorg.Restored, notices.ReorgBlock{Height: b.BlockHeight, IndexBlockHash: b.IndexBlockHash})
		var others [][]byte
		if err := w.tx.NewSelect().Model((*db.Block)(nil)).Column("index_block_hash").
			Where("block_height = ? AND canonical AND index_block_hash <> ?", b.BlockHeight, b.IndexBlockHash).
			Scan(ctx, &others); err != nil {
			return 0, err
		}
		toOrphan = append(toOrphan, others...)
		for _, o := range others {
			reorg.RolledBack = append(reorg.RolledBack, notices.ReorgBlock{Height: b.BlockHeight, IndexBlockHash: o})
		}
		hash = b.ParentIndexBlockHash
	}
	w.addTotals(toOrphan, -1)
	w.flipCanonical(toOrphan, false)
	w.flipCanonical(toCanonical, true)
	w.addTotals(toCanonical, 1)
	if len(toOrphan) > 0 {
		w.restoreMempool("t.index_block_hash = ANY(?1)", byteArray(toOrphan))
	}
	w.pruneMempool(toCanonical, nil)
	slices.Reverse(reorg.Restored) // lowest first, as they join the chain
	if err := w.notifyReorg(reorg.RolledBack, reorg.Restored); err != nil {
		return 0, err
	}
	return len(toCanonical) + len(toOrphan), nil
}

// reorgNoticeRefs bounds the blocks one reorg notice names, keeping it below the NOTIFY limit
// (a block's entry takes about 110 bytes); a deeper reorg is told in several notices.
const reorgNoticeRefs = 60

// notifyReorg announces a reorganisation: the blocks rolled back, then those restored.
func (w *Writer) notifyReorg(rolledBack, restored []notices.ReorgBlock) error {
	for len(rolledBack)+len(restored) > 0 {
		n := notices.Payload{Kind: notices.KindReorg}
		k := min(len(rolledBack), reorgNoticeRefs)
		n.RolledBack, rolledBack = rolledBack[:k], rolledBack[k:]
		k = min(len(restored), reorgNoticeRefs-len(n.RolledBack))
		n.Restored, restored = restored[:k], restored[k:]
		if err := w.notify(n); err != nil {
			return err
		}
	}
	return nil
}

// flipCanonical sets the canonical flag of the blocks' rows in every per-block table, in one
// statement.
func (w *Writer) flipCanonical(hashes [][]byte, canonical bool) {
	if len(hashes) == 0 {
		return
	}
	var q strings.Builder
	q.WriteString("WITH ")
	for i, t := range blockTables[1:] {
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "u_%s AS (UPDATE %s SET canonical = ?0 WHERE index_block_hash = ANY(?1) AND canonical <> ?0 RETURNING 1)", t, t)
	}
	q.WriteString(" UPDATE blocks SET canonical = ?0 WHERE index_block_hash = ANY(?1) AND canonical <> ?0")
	w.exec(q.String(), canonical, byteArray(hashes))
}

// adoptBlockZero moves the boot data of "block 0" (stored non-canonical) into block 1, as the
// reference does: block 0 is an implementation detail of the node.
func (w *Writer) adoptBlockZero(b *db.Block) {
	var q strings.Builder
	q.WriteString("WITH ")
	for i, t := range microblockTables {
		set := "index_block_hash = ?0, block_height = 1, canonical = true"
		switch t {
		case "txs":
			set += ", tx_index = tx_index + 1, block_hash = ?1, burn_block_height = ?3, burn_block_time = ?4, parent_block_hash = ?5"
		case "smart_contracts":
		case "principal_txs":
			set += ", tx_index = tx_index + 1, roles = roles | " + strconv.Itoa(int(roles.BootData))
		default:
			set += ", tx_index = tx_index + 1"
		}
		update := fmt.Sprintf("UPDATE %s SET %s WHERE index_block_hash = ?2 AND block_height = 0", t, set)
		if i == len(microblockTables)-1 {
			// The last update is the statement itself: a queued write returns no rows.
			q.WriteString(" " + update)
			break
		}
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "u_%s AS (%s RETURNING 1)", t, update)
	}
	w.exec(q.String(), b.IndexBlockHash, b.BlockHash, b.ParentIndexBlockHash,
		b.BurnBlockHeight, b.BurnBlockTime, b.ParentBlockHash)
}

// sameHash reports whether two hashes are equal.
func sameHash(a, b []byte) bool { return bytes.Equal(a, b) }

// poxSetRows are the set's rows placed in block b.
func poxSetRows(b *db.Block, set *db.PoxSet) ([]*db.PoxCycle, []*db.PoxSigner) {
	if set == nil {
		return nil, nil
	}
	set.Cycle.IndexBlockHash, set.Cycle.BlockHeight, set.Cycle.Canonical = b.IndexBlockHash, b.BlockHeight, b.Canonical
	for _, s := range set.Signers {
		s.IndexBlockHash, s.BlockHeight, s.Canonical, s.CycleNumber = b.IndexBlockHash, b.BlockHeight, b.Canonical, set.Cycle.CycleNumber
	}
	return []*db.PoxCycle{set.Cycle}, set.Signers
}
