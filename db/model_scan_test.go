package db_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// A transaction read by the typed scan of transaction rows has every column where bun's scan of
// the model puts it: each field holds a value of its own, so a column scanned into another field,
// or one left out, shows.
func TestTxRowsScanLikeTheModel(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	defer store.Close()
	ctx := context.Background()
	str := func(s string) *string { return &s }
	row := &db.Tx{TxID: []byte{1}, IndexBlockHash: []byte{2}, MicroblockHash: []byte{3}, TxIndex: 4, Status: db.TxStatusAbortByResponse,
		RawResult: []byte{0x08, 0x05}, VMError: str("runtime error"), Canonical: true, MicroblockCanonical: true, MicroblockSequence: 6,
		BlockHash: []byte{7}, BlockHeight: 8, BlockTime: 9, ParentIndexBlockHash: []byte{10}, ParentBlockHash: []byte{11},
		BurnBlockHeight: 12, BurnBlockTime: 13, ParentBurnBlockTime: 14, CoinbaseAltRecipient: str("ST15"), EventCount: 16,
		TxFields: db.TxFields{RawTx: []byte{0x80, 17}, TypeID: db.TypeContractCall, Nonce: "18", FeeRate: "19", SenderAddress: "ST20",
			Sponsored: true, SponsorAddress: str("ST21"), SponsorNonce: str("22"), AnchorMode: 3, PostConditionMode: 2,
			TokenTransferRecipientAddress: str("ST23"), TokenTransferAmount: str("24"), SmartContractContractID: str("ST25.c"),
			ContractCallContractID: str("ST26.c"), ContractCallFunctionName: str("f27")},
		ExecutionCost: db.ExecutionCost{ReadCount: 28, ReadLength: 29, Runtime: 30, WriteCount: 31, WriteLength: 32}}
	if _, err := store.DB.NewInsert().Model(row).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var byModel []*db.Tx
	if err := store.DB.NewSelect().Model(&byModel).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := store.TxsByKey(ctx, []db.TxKey{row.Key()})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(byModel) != 1 || !reflect.DeepEqual(got[0], byModel[0]) || !reflect.DeepEqual(got[0], row) {
		t.Errorf("typed scan %+v\nbun's scan %+v\nstored %+v", got, byModel, row)
	}
}

// A block read by the typed scan of block rows has every column where bun's scan of the model
// puts it, its signatures' array included.
func TestBlockRowsScanLikeTheModel(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	defer store.Close()
	ctx := context.Background()
	tenure, bitvec := int32(16), "0a0b"
	row := &db.Block{IndexBlockHash: []byte{1}, BlockHash: []byte{2}, BlockHeight: 3, ParentIndexBlockHash: []byte{4},
		ParentBlockHash: []byte{5}, ParentMicroblockHash: []byte{6}, ParentMicroblockSequence: 7, BurnBlockHash: []byte{8},
		BurnBlockHeight: 9, BurnBlockTime: 10, ParentBurnBlockHash: []byte{11}, ParentBurnBlockHeight: 12, ParentBurnBlockTime: 13,
		BlockTime: 14, MinerTxid: []byte{15}, TenureHeight: &tenure, SignerBitvec: &bitvec,
		SignerSignatures: [][]byte{{17, 18}, {19}}, ConsensusHash: []byte{20}, TxTotalSize: 21, TxCount: 22,
		ExecutionCost: db.ExecutionCost{ReadCount: 23, ReadLength: 24, Runtime: 25, WriteCount: 26, WriteLength: 27}, Canonical: true}
	if _, err := store.DB.NewInsert().Model(row).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var byModel []*db.Block
	if err := store.DB.NewSelect().Model(&byModel).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := store.BlockByHeight(ctx, 3)
	if err != nil || len(byModel) != 1 || !reflect.DeepEqual(got, byModel[0]) || !reflect.DeepEqual(got, row) {
		t.Errorf("typed scan %+v (%v)\nbun's scan %+v\nstored %+v", got, err, byModel, row)
	}
}

// Balance rows of the types the balance read returns (numeric, integer, bigint, bytea, and
// NULL where a figure is unknown) scan into a StxBalance as bun's scan of the model does.
func TestBalanceRowsScanLikeTheModel(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	defer store.Close()
	typed, byModel, err := store.ScanBalancesTwice(context.Background(), `SELECT * FROM (VALUES
		('ST1'::text, 2::numeric, 3::numeric, 4::numeric, 5::numeric, 6::numeric, '\x07'::bytea, 8::numeric, 9, 10, 11,
			12::numeric, 13::numeric, 14::numeric, '\x0f'::bytea, '\x10'::bytea, 17::bigint),
		('ST2', 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, 0))
		AS b(principal, balance, total_sent, total_received, total_fees_sent, total_miner_rewards_received, lock_tx_id, locked,
			lock_height, burnchain_lock_height, burnchain_unlock_height, mempool_inbound, mempool_outbound, estimated_balance,
			latest_tx_id, latest_mempool_tx_id, tx_count)`)
	if err != nil {
		t.Fatal(err)
	}
	if len(typed) != 2 || !reflect.DeepEqual(typed, byModel) {
		t.Errorf("typed scan %+v\nbun's scan %+v", typed, byModel)
	}
	if b := typed[0]; b.Balance != "2" || b.Locked != "8" || b.BurnchainUnlockHeight != 11 || *b.EstimatedBalance != "14" ||
		b.LatestMempoolTxID[0] != 0x10 || b.TxCount != 17 {
		t.Errorf("first balance %+v", b)
	}
}

// A burn block read by the typed scan of burn block rows has every column where bun's scan of
// the model puts it.
func TestBurnBlockRowsScanLikeTheModel(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	defer store.Close()
	ctx := context.Background()
	row := &db.BurnBlock{BurnBlockHash: []byte{1}, BurnBlockHeight: 2, BurnAmount: "3", ConsensusHash: []byte{4},
		ParentBurnBlockHash: []byte{5}, Canonical: true}
	if _, err := store.DB.NewInsert().Model(row).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var byModel []*db.BurnBlock
	if err := store.DB.NewSelect().Model(&byModel).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := store.BurnBlocksByHash(ctx, []string{string(row.BurnBlockHash)})
	if err != nil || len(got) != 1 || len(byModel) != 1 || !reflect.DeepEqual(got[0], byModel[0]) || !reflect.DeepEqual(got[0], row) {
		t.Errorf("typed scan %+v (%v)\nbun's scan %+v\nstored %+v", got, err, byModel, row)
	}
}
