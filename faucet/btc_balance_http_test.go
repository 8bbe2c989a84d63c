package faucet_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"

	"github.com/stxgraph/stxgraph/bitcoin/btcdtest"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/faucet"
	"github.com/stxgraph/stxgraph/server"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// GET /extended/v1/faucets/btc/{address} end to end (the API, its database, a regtest btcd):
// the balance in BTC of an address's confirmed unspent outputs, and the faucets' error shape.
func TestBTCBalanceHTTP(t *testing.T) {
	t.Parallel()
	h := sha256.Sum256([]byte("stxgraph btc balance http"))
	_, pub := btcec.PrivKeyFromBytes(h[:])
	miner, err := address.NewAddressPubKeyHash(address.Hash160(pub.SerializeCompressed()), &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	node := btcdtest.Start(t, miner.EncodeAddress())
	node.Generate(t, 101)
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	btc, err := faucet.NewBTC(faucet.BTCConfig{
		RPCHost: node.Host, RPCPort: node.Port, RPCUser: node.User, RPCPassword: node.Password,
		PrivateKeyHex: hex.EncodeToString(h[:]), Network: "regtest", AmountSats: 10_000,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(btc.Close)
	svc := faucet.New(faucet.Config{Store: store, ChainID: tx.ChainIDTestnet, BTC: btc, Limits: faucet.DefaultLimits()})
	srv := httptest.NewServer(must(server.New(server.Config{Store: store, Faucet: svc, ServerVersion: "test"})))
	t.Cleanup(srv.Close)
	bare := httptest.NewServer(must(server.New(server.Config{Store: store, ServerVersion: "test"})))
	t.Cleanup(bare.Close)

	get := func(base, path string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(body))
	}
	expect := func(base, path string, status int, body string) {
		t.Helper()
		if gotStatus, got := get(base, path); gotStatus != status || got != body {
			t.Errorf("GET %s = %d %s, want %d %s", path, gotStatus, got, status, body)
		}
	}

	// 101 coinbases of 50 BTC, immature ones included.
	expect(srv.URL, "/extended/v1/faucets/btc/"+miner.EncodeAddress(), http.StatusOK, `{"balance":5050}`)
	to := "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
	expect(srv.URL, "/extended/v1/faucets/btc/"+to, http.StatusOK, `{"balance":0}`)
	resp, err := http.Post(srv.URL+"/extended/v1/faucets/btc?"+url.Values{"address": {to}}.Encode(), "", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("payout: %v %v", resp, err)
	}
	resp.Body.Close()
	// Unconfirmed, the payout does not count yet.
	expect(srv.URL, "/extended/v1/faucets/btc/"+to, http.StatusOK, `{"balance":0}`)
	node.Generate(t, 1)
	expect(srv.URL, "/extended/v1/faucets/btc/"+to+"/", http.StatusOK, `{"balance":0.0001}`)

	// GraphQL: the same field.
	q := url.Values{"query": {`{ faucetBtcBalance(address: "` + to + `") { satoshis btc } }`}}.Encode()
	expect(srv.URL, "/graphql?"+q, http.StatusOK, `{"data":{"faucetBtcBalance":{"satoshis":"10000","btc":0.0001}}}`)

	// Malformed or foreign addresses are 400s (the reference fails with a 500); no BTC faucet, a 403.
	expect(srv.URL, "/extended/v1/faucets/btc/notanaddress", http.StatusBadRequest,
		`{"error":"\"notanaddress\" is not a valid Bitcoin regtest address","success":false}`)
	expect(srv.URL, "/extended/v1/faucets/btc/bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", http.StatusBadRequest,
		`{"error":"\"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4\" is a mainnet Bitcoin address; the faucet pays regtest addresses only","success":false}`)
	expect(bare.URL, "/extended/v1/faucets/btc/"+to, http.StatusForbidden, `{"error":"BTC faucet is not fully configured","success":false}`)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
