package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/server"
)

const testSponsor = "ST3J2GVMMM2R07ZFBJDWTYEYAR8FZH5WKDTFJ9AHA"

// mempoolRow is a pending transaction of sender with nonce (sponsored by sponsor with
// sponsorNonce when sponsor is not "").
func mempoolRow(sender string, nonce int, sponsor string, sponsorNonce int) *db.MempoolTx {
	m := &db.MempoolTx{TxID: hash("mempool", sender, nonce, sponsor), ReceiptTime: 1_700_000_000,
		TxFields: db.TxFields{RawTx: []byte{0x80}, Nonce: fmt.Sprint(nonce), FeeRate: "180", SenderAddress: sender}}
	if sponsor != "" {
		sn := fmt.Sprint(sponsorNonce)
		m.Sponsored, m.SponsorAddress, m.SponsorNonce = true, &sponsor, &sn
	}
	return m
}

// Account.nonces as the reference's /extended/v1/address/{principal}/nonces computes it, for
// several accounts in one statement.
func TestAccountNonces(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	// testSender executed nonces 0..3 (in every block); pending: 5 and 7, and 9 as a sponsor.
	chain{blocks: 2, txsPerBlock: 4, sender: testSender}.seed(t, a.store)
	for _, m := range []*db.MempoolTx{mempoolRow(testSender, 5, "", 0), mempoolRow(testSender, 7, "", 0),
		mempoolRow(testSponsor, 0, testSender, 9), mempoolRow("ST1SJ3DTE5DN7X54YDH5D64R3BCB6A2AG2ZQ8YPD5", 3, "", 0)} {
		if _, err := a.store.DB.NewInsert().Model(m).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	type nonces struct {
		LastExecutedTxNonce   *int64
		LastMempoolTxNonce    *int64
		PossibleNextNonce     int64
		DetectedMissingNonces []int64
		DetectedMempoolNonces []int64
	}
	n := func(v int64) *int64 { return &v }
	tests := []struct {
		principal string
		want      nonces
	}{
		{testSender, nonces{n(3), n(9), 10, []int64{8, 6, 4}, []int64{7, 5}}},
		{testSponsor, nonces{nil, n(0), 1, []int64{}, []int64{}}},
		{"ST1SJ3DTE5DN7X54YDH5D64R3BCB6A2AG2ZQ8YPD5", nonces{nil, n(3), 4, []int64{}, []int64{}}},
		{"ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG", nonces{nil, nil, 0, []int64{}, []int64{}}},
	}
	q := `query($a: String!, $b: String!, $c: String!, $d: String!) {` +
		` a: account(principal: $a) { ...N } b: account(principal: $b) { ...N } c: account(principal: $c) { ...N } d: account(principal: $d) { ...N } }
		fragment N on Account { nonces { lastExecutedTxNonce lastMempoolTxNonce possibleNextNonce detectedMissingNonces detectedMempoolNonces } }`
	vars := map[string]any{}
	for i, tc := range tests {
		vars[string(rune('a'+i))] = tc.principal
	}
	data, stmts := a.mustQuery(t, q, vars)
	var got map[string]struct{ Nonces nonces }
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	for i, tc := range tests {
		if g := got[string(rune('a'+i))].Nonces; !reflect.DeepEqual(g, tc.want) {
			t.Errorf("%s: nonces %+v, want %+v", tc.principal, g, tc.want)
		}
	}
	if stmts != 1 {
		t.Errorf("%d statements for four accounts' nonces, want 1", stmts)
	}
}
