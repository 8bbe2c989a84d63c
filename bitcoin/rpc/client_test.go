package rpc

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/stxgraph/stxgraph/bitcoin/bitcoindtest"
	"github.com/stxgraph/stxgraph/bitcoin/btcdtest"
)

func testAddrs(t *testing.T, label string) (p2pkh, p2wpkh address.Address) {
	t.Helper()
	h := sha256.Sum256([]byte(label))
	a, err := address.NewAddressPubKeyHash(h[:20], &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	w, err := address.NewAddressWitnessPubKeyHash(h[:20], &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	return a, w
}

func script(t *testing.T, a address.Address) []byte {
	t.Helper()
	s, err := txscript.PayToAddrScript(a)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func connect(t *testing.T, host string, port int, user, pass string, backend Backend) *Client {
	t.Helper()
	c, err := New(context.Background(), Config{Host: host, Port: port, User: user, Password: pass, Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func outpoints(outs []Output) map[wire.OutPoint]Output {
	m := map[wire.OutPoint]Output{}
	for _, o := range outs {
		m[o.OutPoint] = o
	}
	return m
}

func TestBitcoindSpendable(t *testing.T) {
	for _, pre24 := range []bool{false, true} {
		name := "bitcoind 27"
		if pre24 {
			name = "bitcoind 23"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			node := bitcoindtest.Start(t)
			node.Pre24 = pre24
			node.ScanBusy = 2
			p2pkh, p2wpkh := testAddrs(t, "spendable")
			other, _ := testAddrs(t, "someone else")
			mature := node.Fund(script(t, p2pkh), 50_00000000, 100, true)
			young := node.Fund(script(t, p2pkh), 50_00000000, 99, true)
			payment := node.Fund(script(t, p2wpkh), 2_00000000, 1, false)
			old := node.Fund(script(t, p2wpkh), 3_00000000, 150, false)
			node.Fund(script(t, other), 7_00000000, 150, false)

			c := connect(t, "http://"+node.Host, node.Port, node.User, node.Password, "")
			if c.Backend() != Bitcoind {
				t.Fatalf("detected %q, want bitcoind", c.Backend())
			}
			got := outpoints(must(t)(c.Spendable(context.Background(), []address.Address{p2pkh, p2wpkh})))
			want := map[wire.OutPoint]int64{mature: 50_00000000, old: 3_00000000}
			if !pre24 {
				// Without the coinbase flag a 1-confirmation output may be a coinbase: it waits.
				want[payment] = 2_00000000
			}
			if len(got) != len(want) {
				t.Fatalf("spendable %v, want %v", got, want)
			}
			for op, v := range want {
				if got[op].Value != v {
					t.Errorf("%v: value %d, want %d", op, got[op].Value, v)
				}
			}
			if _, ok := got[young]; ok {
				t.Error("an immature coinbase is listed")
			}
			if !got[mature].Coinbase || got[mature].Confirmations != 100 {
				t.Errorf("mature coinbase listed as %+v", got[mature])
			}
			if node.Calls("scantxoutset") != 3 {
				t.Errorf("%d scantxoutset calls, want 3 (two busy answers, then the scan)", node.Calls("scantxoutset"))
			}
			// The scan is kept while the tip stays; a new block makes the young coinbase mature.
			if again := must(t)(c.Spendable(context.Background(), []address.Address{p2pkh, p2wpkh})); len(again) != len(want) || node.Calls("scantxoutset") != 3 {
				t.Errorf("second listing at the same tip: %d outputs, %d scans", len(again), node.Calls("scantxoutset"))
			}
			node.Mine()
			mined := outpoints(must(t)(c.Spendable(context.Background(), []address.Address{p2pkh, p2wpkh})))
			if _, ok := mined[young]; !ok || node.Calls("scantxoutset") != 4 {
				t.Errorf("after a block: young coinbase listed %v, %d scans; want listed, 4 scans", ok, node.Calls("scantxoutset"))
			}
		})
	}
}

func must(t *testing.T) func([]Output, error) []Output {
	return func(o []Output, err error) []Output {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
}

func TestBitcoindFeeRate(t *testing.T) {
	t.Parallel()
	node := bitcoindtest.Start(t)
	c := connect(t, node.Host, node.Port, node.User, node.Password, Bitcoind)
	if _, ok, err := c.FeeRate(context.Background(), 6); err != nil || ok {
		t.Fatalf("no estimate: ok %v, err %v", ok, err)
	}
	node.FeeRate = 0.00012345 // BTC/kvB = 12.345 sat/vB
	rate, ok, err := c.FeeRate(context.Background(), 6)
	if err != nil || !ok || rate != 13 {
		t.Fatalf("FeeRate = %d, %v, %v; want 13 (rounded up)", rate, ok, err)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	node := bitcoindtest.Start(t)
	bad := connect(t, node.Host, node.Port, node.User, "wrong", Bitcoind)
	_, err := bad.Chain(context.Background())
	if err == nil || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("bad credentials: %v", err)
	}
	if _, ok := IsRPCError(err); ok {
		t.Errorf("HTTP 401 reported as a node answer: %v", err)
	}
	c := connect(t, node.Host, node.Port, node.User, node.Password, Bitcoind)
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Index: 3}, nil, nil))
	tx.AddTxOut(wire.NewTxOut(1000, []byte{txscript.OP_TRUE}))
	_, err = c.Send(context.Background(), tx)
	rerr, ok := IsRPCError(err)
	if !ok || rerr.Code != -25 || rerr.Message != "bad-txns-inputs-missingorspent" {
		t.Fatalf("broadcast with a missing input: %v", err)
	}
	if _, err := New(context.Background(), Config{Host: "127.0.0.1", Port: 9, Backend: ""}); err == nil {
		t.Fatal("detection against a closed port succeeded")
	}
}

// The btcd backend on a real regtest node: detection, the chain, maturity and mempool awareness
// are covered end to end by the faucet's tests; here the pieces the faucet does not show.
func TestBtcd(t *testing.T) {
	t.Parallel()
	p2pkh, p2wpkh := testAddrs(t, "btcd")
	node := btcdtest.Start(t, p2pkh.EncodeAddress())
	c := connect(t, node.Host, node.Port, node.User, node.Password, "")
	if c.Backend() != Btcd {
		t.Fatalf("detected %q, want btcd", c.Backend())
	}
	if chain, err := c.Chain(context.Background()); err != nil || chain != "regtest" {
		t.Fatalf("Chain = %q, %v", chain, err)
	}
	// An address without transactions has no outputs (btcd answers an error, not an empty list).
	if outs, err := c.Spendable(context.Background(), []address.Address{p2pkh, p2wpkh}); err != nil || len(outs) != 0 {
		t.Fatalf("before mining: %v, %v", outs, err)
	}
	node.Generate(t, 101)
	all, err := c.outputs.Unspent(context.Background(), []address.Address{p2pkh, p2wpkh})
	if err != nil {
		t.Fatal(err)
	}
	spendable := must(t)(c.Spendable(context.Background(), []address.Address{p2pkh, p2wpkh}))
	if len(all) != 101 || len(spendable) != 2 {
		t.Fatalf("%d unspent and %d spendable outputs, want 101 coinbases of which 2 mature", len(all), len(spendable))
	}
	if _, _, err := c.FeeRate(context.Background(), 6); err != nil {
		t.Fatalf("FeeRate on a fresh chain: %v", err)
	}
}

// btcd serves 10 RPC requests at once and answers the ones beyond with HTTP 503, which the
// faucet would report as the node being down; a client's calls made all at once share its few
// connections instead, and every one is answered.
func TestBtcdConcurrentCalls(t *testing.T) {
	t.Parallel()
	p2pkh, _ := testAddrs(t, "btcd concurrent")
	node := btcdtest.Start(t, p2pkh.EncodeAddress())
	c := connect(t, node.Host, node.Port, node.User, node.Password, Btcd)
	errs := make(chan error, 200)
	for range cap(errs) {
		go func() {
			_, err := c.Chain(context.Background())
			errs <- err
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
