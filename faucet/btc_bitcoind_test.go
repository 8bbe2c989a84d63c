package faucet

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/bitcoin/bitcoindtest"
)

// The faucet against bitcoind (a stand-in that verifies every script it is sent, since no
// bitcoind runs here): outputs from scantxoutset, fees from estimatesmartfee.

func bitcoindFaucet(t *testing.T, node *bitcoindtest.Node, key string, amount int64) *BTC {
	t.Helper()
	b, err := NewBTC(BTCConfig{
		RPCHost: node.Host, RPCPort: node.Port, RPCUser: node.User, RPCPassword: node.Password,
		PrivateKeyHex: key, AmountSats: amount,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func TestBTCOnBitcoindSpendsBothKinds(t *testing.T) {
	t.Parallel()
	node := bitcoindtest.Start(t)
	node.FeeRate = 0.0002 // 20 sat/vB
	key := testKey("bitcoind both")
	p2pkh, p2wpkh := keyAddrs(t, key)
	pkhScript, _ := txscript.PayToAddrScript(p2pkh)
	wpkhScript, _ := txscript.PayToAddrScript(p2wpkh)
	legacy := node.Fund(pkhScript, 80_000_000, 5, false)
	segwit := node.Fund(wpkhScript, 50_000_000, 5, false)
	node.Fund(wpkhScript, 9_00000000, 50, true) // an immature coinbase: never spent

	b := bitcoindFaucet(t, node, key, 100_000_000)
	to := recipient(t, "bitcoind both", "p2sh")
	sent, err := b.Send(context.Background(), to, noRecord)
	if err != nil {
		t.Fatal(err)
	}
	tx := checkSent(t, sent)
	pool := node.Mempool()
	if len(pool) != 1 || pool[0].TxHash() != tx.TxHash() {
		t.Fatalf("mempool holds %d transactions, want the faucet's", len(pool))
	}
	ins := map[wire.OutPoint]*wire.TxIn{}
	for _, in := range tx.TxIn {
		ins[in.PreviousOutPoint] = in
	}
	if len(ins) != 2 || ins[legacy] == nil || ins[segwit] == nil {
		t.Fatalf("inputs %v, want the P2PKH and the P2WPKH output", ins)
	}
	if len(ins[legacy].SignatureScript) == 0 || len(ins[legacy].Witness) != 0 || len(ins[segwit].Witness) != 2 || len(ins[segwit].SignatureScript) != 0 {
		t.Error("want a scriptSig spend of the P2PKH output and a witness spend of the P2WPKH output")
	}
	var paid, change int64
	toScript := scriptOf(t, to)
	for _, out := range tx.TxOut {
		switch string(out.PkScript) {
		case string(toScript):
			paid += out.Value
		case string(wpkhScript):
			change += out.Value
		default:
			t.Errorf("unexpected output %x", out.PkScript)
		}
	}
	fee := 130_000_000 - paid - change
	vsz := int64((tx.SerializeSizeStripped()*3 + tx.SerializeSize() + 3) / 4)
	if paid != 100_000_000 || change == 0 || fee < 20*vsz || fee > 21*vsz {
		t.Errorf("paid %d, change %d, fee %d for %d vB; want 1 BTC, change, 20 sat/vB", paid, change, fee, vsz)
	}
}

// Concurrent requests chain through the faucet's unconfirmed change (which scantxoutset does not
// show); the stand-in refuses any double spend.
func TestBTCOnBitcoindConcurrent(t *testing.T) {
	t.Parallel()
	node := bitcoindtest.Start(t)
	key := testKey("bitcoind concurrent")
	p2pkh, _ := keyAddrs(t, key)
	node.Fund(scriptOf(t, p2pkh.EncodeAddress()), 50_00000000, 150, true)
	b := bitcoindFaucet(t, node, key, 0)

	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = b.Send(context.Background(), recipient(t, fmt.Sprint("bitcoind concurrent", i), "p2wpkh"), noRecord)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if got := len(node.Mempool()); got != n {
		t.Fatalf("%d transactions accepted, want %d", got, n)
	}
	// After a block the change is confirmed and listed by scantxoutset; the next request spends it.
	node.Mine()
	if _, err := b.Send(context.Background(), recipient(t, "after block", "p2tr"), noRecord); err != nil {
		t.Fatal(err)
	}
}

// Another process with the same key spent one output: the listing leaves it out (mempool
// awareness through gettxspendingprevout, or gettxout on bitcoind before 24).
func TestBTCOnBitcoindSkipsMempoolSpends(t *testing.T) {
	for _, pre24 := range []bool{false, true} {
		t.Run(fmt.Sprint("pre24=", pre24), func(t *testing.T) {
			t.Parallel()
			node := bitcoindtest.Start(t)
			node.Pre24 = pre24
			key := testKey("bitcoind two processes")
			p2pkh, _ := keyAddrs(t, key)
			node.Fund(scriptOf(t, p2pkh.EncodeAddress()), 2_00000000, 120, true)
			node.Fund(scriptOf(t, p2pkh.EncodeAddress()), 3_00000000, 120, true)
			first := bitcoindFaucet(t, node, key, 0)
			second := bitcoindFaucet(t, node, key, 0)
			a, err := first.Send(context.Background(), recipient(t, "first", "p2wpkh"), noRecord)
			if err != nil {
				t.Fatal(err)
			}
			b, err := second.Send(context.Background(), recipient(t, "second", "p2wpkh"), noRecord)
			if err != nil {
				t.Fatal(err)
			}
			if checkSent(t, a).TxIn[0].PreviousOutPoint == checkSent(t, b).TxIn[0].PreviousOutPoint {
				t.Fatal("both processes spent the same output")
			}
			if node.Calls("sendrawtransaction") != 2 {
				t.Errorf("%d broadcasts, want 2 (no rejected attempt)", node.Calls("sendrawtransaction"))
			}
		})
	}
}

func scriptOf(t *testing.T, addr string) []byte {
	t.Helper()
	b, err := NewBTC(BTCConfig{RPCHost: "h", RPCPort: 1, RPCUser: "u", RPCPassword: "p", PrivateKeyHex: testKey("script")})
	if err != nil {
		t.Fatal(err)
	}
	a, err := b.parseAddress(addr)
	if err != nil {
		t.Fatal(err)
	}
	s, err := txscript.PayToAddrScript(a)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A refused broadcast releases its outputs (the next request spends them) and its reason stays
// in the log.
func TestBTCOnBitcoindRejected(t *testing.T) {
	t.Parallel()
	node := bitcoindtest.Start(t)
	key := testKey("bitcoind rejected")
	p2pkh, _ := keyAddrs(t, key)
	coin := node.Fund(scriptOf(t, p2pkh.EncodeAddress()), 2_00000000, 120, true)
	b := bitcoindFaucet(t, node, key, 0)
	to := recipient(t, "rejected", "p2wpkh")

	node.RejectNext = "non-mandatory-script-verify-flag (Signature must be zero for failed CHECK(MULTI)SIG operation)"
	_, err := b.Send(context.Background(), to, noRecord)
	if stxgraph.ErrorCode(err) != stxgraph.EINTERNAL || strings.Contains(stxgraph.ErrorMessage(err), "script") {
		t.Fatalf("rejected broadcast: %v (%s), want EINTERNAL without the node's reason", err, stxgraph.ErrorCode(err))
	}
	sent, err := b.Send(context.Background(), to, noRecord)
	if err != nil {
		t.Fatalf("after a rejection: %v", err)
	}
	if in := checkSent(t, sent).TxIn[0].PreviousOutPoint; in != coin {
		t.Fatalf("spent %v, want the released %v", in, coin)
	}
}

// A rejection of the inputs (another spender was first) is retried with a fresh listing.
func TestBTCOnBitcoindRetriesTakenInputs(t *testing.T) {
	t.Parallel()
	node := bitcoindtest.Start(t)
	key := testKey("bitcoind taken")
	p2pkh, _ := keyAddrs(t, key)
	node.Fund(scriptOf(t, p2pkh.EncodeAddress()), 2_00000000, 120, true)
	b := bitcoindFaucet(t, node, key, 0)
	node.RejectNext = "bad-txns-inputs-missingorspent"
	if _, err := b.Send(context.Background(), recipient(t, "taken", "p2wpkh"), noRecord); err != nil {
		t.Fatal(err)
	}
	if n := node.Calls("sendrawtransaction"); n != 2 || len(node.Mempool()) != 1 {
		t.Fatalf("%d broadcasts, %d accepted; want a retry after the rejection", n, len(node.Mempool()))
	}
}
