package chainwrite

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
)

// BurnBlockData is what one /new_burn_block message writes.
type BurnBlockData struct {
	Block       *db.BurnBlock
	Rewards     []*db.BurnchainReward
	SlotHolders []*db.RewardSlotHolder
}

// ApplyBurnBlock stores a Bitcoin block. Rows of other burn blocks at the same or a greater
// height become non-canonical: the burnchain forked.
//
// A replay applies thousands of burn blocks, mostly in runs without anything between them, and
// per-statement overhead is most of their cost: the block is held back, and a run of blocks of
// rising heights is written in one statement when the next other write is queued. That is the
// same as one statement per block: a block only changes rows at its height or above, where no
// earlier block of the run has any.
func (w *Writer) ApplyBurnBlock(ctx context.Context, d *BurnBlockData) error {
	d.Block.Canonical = true
	for _, r := range d.Rewards {
		r.Canonical = true
	}
	for _, s := range d.SlotHolders {
		s.Canonical = true
	}
	if n := len(w.burnBlocks); n > 0 && w.burnBlocks[n-1].Block.BurnBlockHeight >= d.Block.BurnBlockHeight {
		w.queueBurnBlocks()
	}
	w.burnBlocks = append(w.burnBlocks, d)
	return nil
}

// queueBurnBlocks queues the burn blocks held back. The updates touch other blocks' rows than
// the inserts do.
func (w *Writer) queueBurnBlocks() {
	run := w.burnBlocks
	if len(run) == 0 {
		return
	}
	w.burnBlocks = nil
	var blocks []*db.BurnBlock
	var rewards []*db.BurnchainReward
	var holders []*db.RewardSlotHolder
	var hashes [][]byte
	for _, d := range run {
		blocks = append(blocks, d.Block)
		rewards = append(rewards, d.Rewards...)
		holders = append(holders, d.SlotHolders...)
		hashes = append(hashes, d.Block.BurnBlockHash)
	}
	w.exec(`WITH a AS (`+orphanBurnRows("burn_blocks")+`), r AS (`+orphanBurnRows("burnchain_rewards")+`),
		s AS (`+orphanBurnRows("reward_slot_holders")+`), i AS (?2), ir AS (?3), ish AS (?4)
		UPDATE chain_tip SET burn_block_height = GREATEST(burn_block_height, ?5)`,
		run[0].Block.BurnBlockHeight, byteArray(hashes),
		w.tx.NewInsert().Model(&blocks).On("CONFLICT (burn_block_hash) DO UPDATE SET canonical = true").Returning("1"),
		w.cte(rowsInsert(w, rewards)), w.cte(rowsInsert(w, holders)), run[len(run)-1].Block.BurnBlockHeight)
	// Reads of burn blocks change with them, though no subscription follows them.
	w.notify(notices.Payload{Kind: notices.KindBurnBlock, BlockHeight: run[len(run)-1].Block.BurnBlockHeight}) //nolint:errcheck // a notice always encodes
}

// orphanBurnRows is the update that takes the rows of a burn table off the canonical chain when
// burn blocks arrive from height ?0 with the hashes ?1: every canonical row at or above that
// height of another block. Each table has an index on the height, so that the update reads the
// few rows above it however long the burn chain is.
func orphanBurnRows(table string) string {
	return "UPDATE " + table + " SET canonical = false WHERE burn_block_height >= ?0 AND burn_block_hash <> ALL(?1) AND canonical RETURNING 1"
}

// cte is an insert for a WITH clause, which needs a query even when there are no rows.
func (w *Writer) cte(q *bun.InsertQuery) bun.Query {
	if q == nil {
		return w.tx.NewRaw("SELECT 1")
	}
	return q.Returning("1")
}

// Attachment is one attachment (a BNS zonefile) the node announced.
type Attachment struct {
	bun.BaseModel `bun:"table:attachments"`

	TxID            []byte `bun:"tx_id,pk"`
	IndexBlockHash  []byte `bun:"index_block_hash,pk"`
	AttachmentIndex int32  `bun:"attachment_index,pk"`
	BlockHeight     int32  `bun:"block_height"`
	ContractID      string `bun:"contract_id"`
	ContentHash     []byte `bun:"content_hash"`
	Metadata        []byte `bun:"metadata"`
	Content         []byte `bun:"content"`
}

// StoreAttachments stores attachments; one delivered twice is stored once.
func (w *Writer) StoreAttachments(ctx context.Context, as []*Attachment) error {
	insertAll(w, as)
	return nil
}

// StoreStackerDBChunks keeps a /stackerdb_chunks message as it came.
func (w *Writer) StoreStackerDBChunks(ctx context.Context, contractID *string, payload json.RawMessage) error {
	w.exec("INSERT INTO stackerdb_chunks (receive_timestamp, contract_id, payload) VALUES (?, ?, ?)",
		w.ReceivedAt, contractID, string(payload))
	return nil
}

// StoreProposalResponse keeps a /proposal_response message as it came.
func (w *Writer) StoreProposalResponse(ctx context.Context, payload json.RawMessage) error {
	w.exec("INSERT INTO block_proposal_responses (receive_timestamp, payload) VALUES (?, ?)",
		w.ReceivedAt, string(payload))
	return nil
}
