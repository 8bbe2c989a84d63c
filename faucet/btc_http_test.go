package faucet_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/stxgraph/stxgraph/bitcoin/btcdtest"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/faucet"
	"github.com/stxgraph/stxgraph/server"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// POST /extended/v1/faucets/btc end to end: the API on loopback, its database, a regtest btcd.
func TestBTCFaucetHTTP(t *testing.T) {
	t.Parallel()
	h := sha256.Sum256([]byte("stxgraph btc faucet http"))
	key := hex.EncodeToString(h[:])
	_, pub := btcec.PrivKeyFromBytes(h[:])
	p2pkh, err := address.NewAddressPubKeyHash(address.Hash160(pub.SerializeCompressed()), &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	node := btcdtest.Start(t, p2pkh.EncodeAddress())
	node.Generate(t, 101)
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })

	btc, err := faucet.NewBTC(faucet.BTCConfig{
		RPCHost: node.Host, RPCPort: node.Port, RPCUser: node.User, RPCPassword: node.Password,
		PrivateKeyHex: key, Network: "regtest",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(btc.Close)
	svc := faucet.New(faucet.Config{Store: store, ChainID: tx.ChainIDTestnet, BTC: btc, Limits: faucet.DefaultLimits()})
	handler, err := server.New(server.Config{Store: store, Faucet: svc, ServerVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)

	post := func(path, ctype, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		for _, secret := range []string{node.User, node.Password, ":" + strconv.Itoa(node.Port), key} {
			if strings.Contains(string(raw), secret) {
				t.Errorf("body %s shows %q", raw, secret)
			}
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%d %q is no JSON object", resp.StatusCode, raw)
		}
		return resp.StatusCode, m
	}
	// paid checks a 200 body and returns its transaction.
	paid := func(status int, body map[string]any) *wire.MsgTx {
		t.Helper()
		if status != http.StatusOK || body["success"] != true {
			t.Fatalf("%d %v", status, body)
		}
		id, _ := body["txId"].(string)
		rawHex, _ := body["txRaw"].(string)
		if body["txid"] != id || body["raw_tx"] != rawHex {
			t.Errorf("txid/raw_tx %v/%v differ from txId/txRaw", body["txid"], body["raw_tx"])
		}
		raw, _ := hex.DecodeString(rawHex)
		var tx wire.MsgTx
		if err := tx.Deserialize(bytes.NewReader(raw)); err != nil || tx.TxHash().String() != id {
			t.Fatalf("txRaw %q (%v) does not hash to txId %s", rawHex, err, id)
		}
		return &tx
	}

	to1 := "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
	tx1 := paid(post("/extended/v1/faucets/btc", "application/json", `{"address":"`+to1+`"}`))
	to2 := "bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6"
	tx2 := paid(post("/extended/v1/faucets/btc?"+url.Values{"address": {to2}}.Encode(), "", ""))

	node.Generate(t, 1)
	for _, c := range []struct {
		tx *wire.MsgTx
		to string
	}{{tx1, to1}, {tx2, to2}} {
		a, _ := address.DecodeAddress(c.to, &chaincfg.RegressionNetParams)
		script, _ := txscript.PayToAddrScript(a)
		hash := c.tx.TxHash()
		found := false
		for i, out := range c.tx.TxOut {
			if !bytes.Equal(out.PkScript, script) {
				continue
			}
			res, err := node.RPC.GetTxOut(&hash, uint32(i), false)
			if err != nil || res == nil || res.Confirmations != 1 || res.Value != 1 {
				t.Fatalf("%s:%d for %s: %+v, %v; want 1 BTC with 1 confirmation", hash, i, c.to, res, err)
			}
			found = true
		}
		if !found {
			t.Errorf("tx %s pays nothing to %s", hash, c.to)
		}
	}

	// A mainnet address is refused before anything is broadcast.
	status, body := post("/extended/v1/faucets/btc?address=bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "", "")
	if msg, _ := body["error"].(string); status != http.StatusBadRequest || body["success"] != false || msg == "" {
		t.Errorf("mainnet address: %d %v, want 400", status, body)
	}
	if pool, err := node.RPC.GetRawMempool(); err != nil || len(pool) != 0 {
		t.Errorf("mempool %v, %v after a refused request, want empty", pool, err)
	}
}
