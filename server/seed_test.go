package server_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/uptrace/bun"

	"github.com/stxgraph/stxgraph/db"
)

// chain is a synthetic canonical chain of blocks × txs × STX events, inserted through the db
// models, for tests that care about shapes and statement counts rather than real payloads.
type chain struct {
	blocks, txsPerBlock, eventsPerTx int
	sender                           string
}

const testSender = "ST2ZRX0K27GW0SP3GJCEMHD95TQGJMKB7G9Y0X1MH"

func hash(parts ...any) []byte {
	h := sha256.Sum256(fmt.Append(nil, parts...))
	return h[:]
}

func blockRow(height int, canonical bool) *db.Block {
	return &db.Block{
		IndexBlockHash: hash("ibh", height, canonical), BlockHash: hash("bh", height, canonical), BlockHeight: int32(height),
		ParentIndexBlockHash: hash("ibh", height-1, true), ParentBlockHash: hash("bh", height-1, true),
		ParentMicroblockHash: []byte{}, ParentMicroblockSequence: -1,
		BurnBlockHash: hash("burn", height), BurnBlockHeight: int32(100 + height), BurnBlockTime: int64(1_600_000_000 + height),
		ParentBurnBlockHash: hash("burn", height-1), BlockTime: int64(1_600_000_000 + height), MinerTxid: hash("miner", height),
		Canonical: canonical,
	}
}

func txRow(b *db.Block, i int, sender string) *db.Tx {
	return &db.Tx{
		TxID: hash("tx", b.BlockHeight, i, b.Canonical), IndexBlockHash: b.IndexBlockHash, MicroblockHash: []byte{},
		TxIndex: int32(i), Status: db.TxStatusSuccess, RawResult: []byte{0x07, 0x03}, Canonical: b.Canonical, MicroblockCanonical: true,
		MicroblockSequence: 2147483647, BlockHash: b.BlockHash, BlockHeight: b.BlockHeight, ParentIndexBlockHash: b.ParentIndexBlockHash,
		ParentBlockHash: b.ParentBlockHash, BurnBlockHeight: b.BurnBlockHeight, BurnBlockTime: b.BurnBlockTime,
		TxFields: db.TxFields{RawTx: []byte{0x80}, TypeID: 0, Nonce: fmt.Sprint(i), FeeRate: "180", SenderAddress: sender},
	}
}

// insertBlock stores one block with its txs, their events and the sender's history rows, and
// moves the tip to it when canonical.
func (c chain) insertBlock(ctx context.Context, t testing.TB, store *db.Store, height int, canonical bool) *db.Block {
	t.Helper()
	b := blockRow(height, canonical)
	b.TxCount = int32(c.txsPerBlock)
	err := store.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(b).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&db.BurnBlock{BurnBlockHash: b.BurnBlockHash, BurnBlockHeight: b.BurnBlockHeight, BurnAmount: "0", Canonical: true}).
			On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
			return err
		}
		for i := range c.txsPerBlock {
			row := txRow(b, i, c.sender)
			row.EventCount = int32(c.eventsPerTx)
			if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
				return err
			}
			pos := db.EventPosition{TxID: row.TxID, IndexBlockHash: b.IndexBlockHash, MicroblockHash: []byte{}, TxIndex: row.TxIndex,
				BlockHeight: b.BlockHeight, MicroblockSequence: row.MicroblockSequence, Canonical: canonical, MicroblockCanonical: true}
			for e := range c.eventsPerTx {
				pos.EventIndex = int32(e)
				sender := c.sender
				ev := &db.StxEvent{EventPosition: pos, AssetEventTypeID: db.AssetEventTransfer, Sender: &sender, Recipient: &sender, Amount: "1"}
				if _, err := tx.NewInsert().Model(ev).Exec(ctx); err != nil {
					return err
				}
			}
			ptx := &db.PrincipalTx{Principal: c.sender, TxID: row.TxID, IndexBlockHash: b.IndexBlockHash, MicroblockHash: []byte{},
				BlockHeight: b.BlockHeight, MicroblockSequence: row.MicroblockSequence, TxIndex: row.TxIndex, Canonical: canonical, MicroblockCanonical: true}
			if _, err := tx.NewInsert().Model(ptx).Exec(ctx); err != nil {
				return err
			}
		}
		if !canonical {
			return nil
		}
		_, err := tx.NewUpdate().Model(&db.ChainTip{}).Set("block_height = ?, block_hash = ?, index_block_hash = ?, burn_block_height = ?",
			b.BlockHeight, b.BlockHash, b.IndexBlockHash, b.BurnBlockHeight).Where("id").Exec(ctx)
		return err
	})
	if err != nil {
		t.Fatalf("insert block %d: %v", height, err)
	}
	return b
}

// seed stores blocks 1..c.blocks.
func (c chain) seed(t testing.TB, store *db.Store) {
	t.Helper()
	for h := 1; h <= c.blocks; h++ {
		c.insertBlock(context.Background(), t, store, h, true)
	}
}
