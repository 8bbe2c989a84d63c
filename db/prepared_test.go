package db_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// Pages of transactions read in hundreds of column shapes, more than the store keeps prepared,
// answer each column as the whole row has it: those past the bound run unprepared, with the
// same parameters.
func TestTxPagesInManyShapes(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	defer store.Close()
	ctx := context.Background()
	vmError := "runtime error"
	row := &db.Tx{TxID: []byte{1}, IndexBlockHash: []byte{2}, MicroblockHash: []byte{}, Status: db.TxStatusAbortByResponse,
		RawResult: []byte{0x08, 0x03}, VMError: &vmError, Canonical: true, MicroblockCanonical: true, MicroblockSequence: 2147483647,
		BlockHash: []byte{3}, BlockHeight: 5, BlockTime: 11, BurnBlockTime: 12, ParentIndexBlockHash: []byte{}, ParentBlockHash: []byte{},
		TxFields: db.TxFields{RawTx: []byte{0x80, 0x01}, TypeID: db.TypeContractCall, Nonce: "3", FeeRate: "7", SenderAddress: "ST1"}}
	if _, err := store.DB.NewInsert().Model(row).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	page := db.Keyset{Limit: 5}
	whole, err := store.TxsOfBlocks(ctx, []string{string(row.IndexBlockHash)}, page, db.AllTxColumns)
	if err != nil || len(whole) != 1 {
		t.Fatalf("whole rows: %v, %v", whole, err)
	}
	fields := []struct {
		column string
		value  func(*db.Tx) any
	}{
		{"fee_rate", func(t *db.Tx) any { return t.FeeRate }}, {"nonce", func(t *db.Tx) any { return t.Nonce }},
		{"sender_address", func(t *db.Tx) any { return t.SenderAddress }}, {"status", func(t *db.Tx) any { return t.Status }},
		{"type_id", func(t *db.Tx) any { return t.TypeID }}, {"block_time", func(t *db.Tx) any { return t.BlockTime }},
		{"burn_block_time", func(t *db.Tx) any { return t.BurnBlockTime }}, {"vm_error", func(t *db.Tx) any { return t.VMError }},
		{"raw_tx", func(t *db.Tx) any { return t.RawTx }}, {"raw_result", func(t *db.Tx) any { return t.RawResult }},
	}
	for shape := 1; shape < 1<<len(fields); shape++ { // 1,023 shapes
		var names []string
		for i, f := range fields {
			if shape&(1<<i) != 0 {
				names = append(names, f.column)
			}
		}
		got, err := store.TxsOfBlocks(ctx, []string{string(row.IndexBlockHash)}, page, db.TxColumnsNamed(names...))
		if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0].TxID, whole[0].TxID) {
			t.Fatalf("columns %v: %v, %v", names, got, err)
		}
		for i, f := range fields {
			if shape&(1<<i) != 0 && !reflect.DeepEqual(f.value(got[0]), f.value(whole[0])) {
				t.Errorf("columns %v: %s = %v, the whole row has %v", names, f.column, f.value(got[0]), f.value(whole[0]))
			}
		}
	}
}
