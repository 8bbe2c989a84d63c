package db_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// A page of a block's transactions, a page of a principal's and a lookup by id that read the
// summary columns answer each of them as the whole row has it, and leave the others (the raw
// transaction and result, the execution costs, …) unread.
func TestTxSummaryColumns(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	defer store.Close()
	ctx := context.Background()
	sponsor, sponsorNonce, vmError := "ST2", "9", "runtime error"
	row := &db.Tx{TxID: []byte{1}, IndexBlockHash: []byte{2}, MicroblockHash: []byte{}, TxIndex: 4, Status: db.TxStatusAbortByResponse,
		RawResult: []byte{0x08, 0x03}, VMError: &vmError, Canonical: true, MicroblockCanonical: true, MicroblockSequence: 2147483647,
		BlockHash: []byte{3}, BlockHeight: 5, BlockTime: 11, BurnBlockTime: 12, ParentIndexBlockHash: []byte{}, ParentBlockHash: []byte{},
		EventCount: 6, ExecutionCost: db.ExecutionCost{Runtime: 13},
		TxFields: db.TxFields{RawTx: []byte{0x80, 0x01}, TypeID: db.TypeContractCall, Nonce: "3", FeeRate: "7", SenderAddress: "ST1",
			Sponsored: true, SponsorAddress: &sponsor, SponsorNonce: &sponsorNonce}}
	if _, err := store.DB.NewInsert().Model(row).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	principal := &db.PrincipalTx{Principal: "ST1", TxID: row.TxID, IndexBlockHash: row.IndexBlockHash, MicroblockHash: row.MicroblockHash,
		BlockHeight: row.BlockHeight, MicroblockSequence: row.MicroblockSequence, TxIndex: row.TxIndex, Canonical: true, MicroblockCanonical: true}
	if _, err := store.DB.NewInsert().Model(principal).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	page := db.Keyset{Limit: 5}
	reads := map[string]func(db.TxColumns) ([]*db.Tx, error){
		"block": func(c db.TxColumns) ([]*db.Tx, error) {
			return store.TxsOfBlocks(ctx, []string{string(row.IndexBlockHash)}, page, c)
		},
		"principal": func(c db.TxColumns) ([]*db.Tx, error) {
			rows, err := store.TxsOfPrincipals(ctx, []string{"ST1"}, page, c)
			var txs []*db.Tx
			for _, r := range rows {
				txs = append(txs, &r.Tx)
			}
			return txs, err
		},
		"lookup": func(c db.TxColumns) ([]*db.Tx, error) {
			return store.CanonicalTxsByID(ctx, []string{string(row.TxID)}, true, c)
		},
	}
	for name, read := range reads {
		whole, err := read(db.AllTxColumns)
		if err != nil || len(whole) != 1 || !reflect.DeepEqual(whole[0], row) {
			t.Fatalf("%s: whole rows %+v, %v; stored %+v", name, whole, err, row)
		}
		got, err := read(db.TxSummaryColumns)
		if err != nil || len(got) != 1 {
			t.Fatalf("%s: summary rows %+v, %v", name, got, err)
		}
		want := *row
		want.RawResult, want.VMError, want.BlockHash, want.ParentIndexBlockHash, want.ParentBlockHash = nil, nil, nil, nil, nil
		want.BlockTime, want.BurnBlockTime, want.RawTx, want.Nonce, want.ExecutionCost = 0, 0, nil, "", db.ExecutionCost{}
		if !reflect.DeepEqual(got[0], &want) {
			t.Errorf("%s: summary columns read\n%+v\nwant\n%+v", name, got[0], &want)
		}
	}
}
