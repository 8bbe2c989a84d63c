package db

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"
)

// BurnBlockData is what one /new_burn_block message writes.
type BurnBlockData struct {
	Block       *BurnBlock
	Rewards     []*BurnchainReward
	SlotHolders []*RewardSlotHolder
}

// ApplyBurnBlock stores a Bitcoin block. Rows of other burn blocks at the same or a greater
// height become non-canonical: the burnchain forked.
func (w *Writer) ApplyBurnBlock(ctx context.Context, d *BurnBlockData) error {
	b := d.Block
	b.Canonical = true
	for _, r := range d.Rewards {
		r.Canonical = true
	}
	for _, s := range d.SlotHolders {
		s.Canonical = true
	}
	// One statement: a replay applies thousands of burn blocks, and per-statement overhead
	// is most of their cost. The updates touch other blocks' rows than the inserts do.
	w.exec(`WITH a AS (
			UPDATE burn_blocks SET canonical = false WHERE burn_block_height >= ?0 AND burn_block_hash <> ?1 AND canonical RETURNING 1),
		r AS (UPDATE burnchain_rewards SET canonical = false WHERE burn_block_height >= ?0 AND burn_block_hash <> ?1 AND canonical RETURNING 1),
		s AS (UPDATE reward_slot_holders SET canonical = false WHERE burn_block_height >= ?0 AND burn_block_hash <> ?1 AND canonical RETURNING 1),
		i AS (?2)
		UPDATE chain_tip SET burn_block_height = GREATEST(burn_block_height, ?0)`,
		b.BurnBlockHeight, b.BurnBlockHash,
		w.tx.NewInsert().Model(b).On("CONFLICT (burn_block_hash) DO UPDATE SET canonical = true").Returning("1"))
	insertAll(w, d.Rewards)
	insertAll(w, d.SlotHolders)
	return nil
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
