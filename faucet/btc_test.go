package faucet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/bitcoin/btcdtest"
	"github.com/stxgraph/stxgraph/bitcoin/rpc"
)

// testKey derives a private key (hex) from a label, so that each test has its own coins.
func testKey(label string) string {
	h := sha256.Sum256([]byte("stxgraph btc faucet test " + label))
	return hex.EncodeToString(h[:])
}

// keyAddrs are the P2PKH and P2WPKH regtest addresses of a testKey.
func keyAddrs(t *testing.T, keyHex string) (p2pkh, p2wpkh address.Address) {
	t.Helper()
	raw, _ := hex.DecodeString(keyHex)
	_, pub := btcec.PrivKeyFromBytes(raw)
	pkh := address.Hash160(pub.SerializeCompressed())
	a, err := address.NewAddressPubKeyHash(pkh, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	w, err := address.NewAddressWitnessPubKeyHash(pkh, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	return a, w
}

// fundedNode starts btcd mining to the P2PKH address of key and mines 101 blocks: the coinbases
// of blocks 1 and 2 (50 BTC each) are then mature.
func fundedNode(t *testing.T, key string) *btcdtest.Node {
	t.Helper()
	p2pkh, _ := keyAddrs(t, key)
	node := btcdtest.Start(t, p2pkh.EncodeAddress())
	node.Generate(t, 101)
	return node
}

func newTestBTC(t *testing.T, node *btcdtest.Node, key string, amount int64) *BTC {
	t.Helper()
	b, err := NewBTC(BTCConfig{
		RPCHost: node.Host, RPCPort: node.Port, RPCUser: node.User, RPCPassword: node.Password,
		PrivateKeyHex: key, Network: "regtest", AmountSats: amount, FallbackFeeRate: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// recipient is a fresh regtest address of a kind.
func recipient(t *testing.T, label, kind string) string {
	t.Helper()
	h := sha256.Sum256([]byte("recipient " + label))
	var a address.Address
	var err error
	params := &chaincfg.RegressionNetParams
	switch kind {
	case "p2pkh":
		a, err = address.NewAddressPubKeyHash(h[:20], params)
	case "p2sh":
		a, err = address.NewAddressScriptHashFromHash(h[:20], params)
	case "p2wpkh":
		a, err = address.NewAddressWitnessPubKeyHash(h[:20], params)
	case "p2wsh":
		a, err = address.NewAddressWitnessScriptHash(h[:], params)
	case "p2tr":
		// A valid x-only key: the hash as a private key's public key.
		_, pub := btcec.PrivKeyFromBytes(h[:])
		a, err = address.NewAddressTaproot(pub.SerializeCompressed()[1:], params)
	}
	if err != nil {
		t.Fatal(err)
	}
	return a.EncodeAddress()
}

// confirmedTx fetches a mined transaction by id, failing unless it has exactly conf confirmations.
func confirmedTx(t *testing.T, node *btcdtest.Node, txid string, conf uint64) *wire.MsgTx {
	t.Helper()
	h, err := chainhash.NewHashFromStr(txid)
	if err != nil {
		t.Fatal(err)
	}
	res, err := node.RPC.GetRawTransactionVerbose(h)
	if err != nil {
		t.Fatalf("getrawtransaction %s: %v", txid, err)
	}
	if res.Confirmations != conf {
		t.Fatalf("tx %s has %d confirmations, want %d", txid, res.Confirmations, conf)
	}
	raw, _ := hex.DecodeString(res.Hex)
	var tx wire.MsgTx
	if err := tx.Deserialize(bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	return &tx
}

// holds checks through gettxout that addr holds an unspent output of want sats in tx.
func holds(t *testing.T, node *btcdtest.Node, tx *wire.MsgTx, addr string, want int64) {
	t.Helper()
	a, err := address.DecodeAddress(addr, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	script, _ := txscript.PayToAddrScript(a)
	hash := tx.TxHash()
	for i, out := range tx.TxOut {
		if !bytes.Equal(out.PkScript, script) {
			continue
		}
		res, err := node.RPC.GetTxOut(&hash, uint32(i), true)
		if err != nil || res == nil {
			t.Fatalf("gettxout %s:%d = %v, %v", hash, i, res, err)
		}
		if got := int64(res.Value*1e8 + 0.5); got != want {
			t.Errorf("%s holds %d sats in %s, want %d", addr, got, hash, want)
		}
		if res.Confirmations < 1 {
			t.Errorf("%s:%d has %d confirmations", hash, i, res.Confirmations)
		}
		return
	}
	t.Fatalf("tx %s pays nothing to %s", hash, addr)
}

// checkSent checks that the returned raw transaction is the one with the returned id.
func checkSent(t *testing.T, s Sent) *wire.MsgTx {
	t.Helper()
	raw, err := hex.DecodeString(s.TxRaw)
	if err != nil {
		t.Fatal(err)
	}
	var tx wire.MsgTx
	if err := tx.Deserialize(bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	if got := tx.TxHash().String(); got != s.TxID {
		t.Fatalf("txRaw hashes to %s, txId is %s", got, s.TxID)
	}
	return &tx
}

func TestBTCSend(t *testing.T) {
	t.Parallel()
	key := testKey("send")
	node := fundedNode(t, key)
	b := newTestBTC(t, node, key, 0)
	to := recipient(t, "send", "p2wpkh")

	sent, err := b.Send(context.Background(), to, noRecord)
	if err != nil {
		t.Fatal(err)
	}
	tx := checkSent(t, sent)
	node.Generate(t, 1)
	mined := confirmedTx(t, node, sent.TxID, 1)
	if mined.TxHash() != tx.TxHash() {
		t.Fatal("mined transaction differs from the one returned")
	}
	holds(t, node, mined, to, 100_000_000)

	// The only input is a 50 BTC coinbase at the faucet's P2PKH address; the change goes back to
	// its P2WPKH address, and the fee pays at least the fallback rate (5 sat/vB).
	if len(mined.TxIn) != 1 {
		t.Fatalf("%d inputs, want 1", len(mined.TxIn))
	}
	_, p2wpkh := keyAddrs(t, key)
	var change int64
	for _, out := range mined.TxOut {
		if s, _ := txscript.PayToAddrScript(p2wpkh); bytes.Equal(out.PkScript, s) {
			change = out.Value
		}
	}
	fee := 50_00000000 - 100_000_000 - change
	vsz := (mined.SerializeSizeStripped()*3 + mined.SerializeSize() + 3) / 4
	if change == 0 || fee < int64(5*vsz) || fee > int64(6*vsz) {
		t.Errorf("change %d, fee %d for %d vB: want change back and 5 sat/vB", change, fee, vsz)
	}
}

func TestBTCConcurrentRequests(t *testing.T) {
	t.Parallel()
	key := testKey("concurrent")
	node := fundedNode(t, key)
	b := newTestBTC(t, node, key, 0)

	kinds := []string{"p2wpkh", "p2pkh", "p2sh", "p2wsh", "p2tr"}
	const n = 10
	addrs := make([]string, n)
	sent := make([]Sent, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		addrs[i] = recipient(t, fmt.Sprint("concurrent", i), kinds[i%len(kinds)])
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent[i], errs[i] = b.Send(context.Background(), addrs[i], noRecord)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	hashes := node.Generate(t, 1)
	bh, _ := chainhash.NewHashFromStr(hashes[0])
	block, err := node.RPC.GetBlock(bh)
	if err != nil {
		t.Fatal(err)
	}
	inBlock := map[string]bool{}
	for _, tx := range block.Transactions {
		inBlock[tx.TxHash().String()] = true
	}
	spends := map[wire.OutPoint]string{}
	for i, s := range sent {
		if !inBlock[s.TxID] {
			t.Errorf("request %d: tx %s not in the mined block", i, s.TxID)
		}
		tx := confirmedTx(t, node, s.TxID, 1)
		holds(t, node, tx, addrs[i], 100_000_000)
		for _, in := range tx.TxIn {
			if other, dup := spends[in.PreviousOutPoint]; dup {
				t.Errorf("%v spent by both %s and %s", in.PreviousOutPoint, other, s.TxID)
			}
			spends[in.PreviousOutPoint] = s.TxID
		}
	}
}

// The faucet's coins may sit at its P2WPKH address only: here a second faucet key is funded
// there by the first faucet, and pays out from it.
func TestBTCSpendsP2WPKHCoins(t *testing.T) {
	t.Parallel()
	key := testKey("p2wpkh-funder")
	node := fundedNode(t, key)
	funder := newTestBTC(t, node, key, 3_00000000)

	key2 := testKey("p2wpkh-faucet")
	p2pkh2, p2wpkh2 := keyAddrs(t, key2)
	funding, err := funder.Send(context.Background(), p2wpkh2.EncodeAddress(), noRecord)
	if err != nil {
		t.Fatal(err)
	}
	node.Generate(t, 1)
	confirmedTx(t, node, funding.TxID, 1)

	b := newTestBTC(t, node, key2, 0)
	if got, _ := b.Addresses(); got != p2pkh2.EncodeAddress() {
		t.Fatalf("faucet P2PKH address %s, want %s", got, p2pkh2)
	}
	to := recipient(t, "p2wpkh", "p2tr")
	sent, err := b.Send(context.Background(), to, noRecord)
	if err != nil {
		t.Fatal(err)
	}
	node.Generate(t, 1)
	tx := confirmedTx(t, node, sent.TxID, 1)
	holds(t, node, tx, to, 100_000_000)
	if len(tx.TxIn) != 1 || tx.TxIn[0].PreviousOutPoint.Hash.String() != funding.TxID || len(tx.TxIn[0].Witness) != 2 || len(tx.TxIn[0].SignatureScript) != 0 {
		t.Fatalf("input %v (witness %d items, sigscript %d bytes): want a witness spend of the funding output",
			tx.TxIn[0].PreviousOutPoint, len(tx.TxIn[0].Witness), len(tx.TxIn[0].SignatureScript))
	}

	// What is left (about 2 BTC) pays one more request; after that the faucet is out of coins.
	if _, err := b.Send(context.Background(), to, noRecord); err != nil {
		t.Fatal(err)
	}
	_, err = b.Send(context.Background(), to, noRecord)
	if stxgraph.ErrorCode(err) != stxgraph.EUNAVAILABLE || !strings.Contains(stxgraph.ErrorMessage(err), "out of coins") {
		t.Fatalf("third request: %v (%s), want EUNAVAILABLE out of coins", err, stxgraph.ErrorCode(err))
	}
}

// Listing skips immature coinbase outputs and outputs that a mempool transaction spends.
func TestBTCSpendableOutputs(t *testing.T) {
	t.Parallel()
	key := testKey("spendable")
	node := fundedNode(t, key)
	b := newTestBTC(t, node, key, 0)
	p2pkh, p2wpkh := keyAddrs(t, key)
	client, err := rpc.New(context.Background(), rpc.Config{Host: node.Host, Port: node.Port, User: node.User, Password: node.Password})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if client.Backend() != rpc.Btcd {
		t.Fatalf("detected backend %q, want btcd", client.Backend())
	}
	list := func() map[wire.OutPoint]rpc.Output {
		outs, err := client.Spendable(context.Background(), []address.Address{p2pkh, p2wpkh})
		if err != nil {
			t.Fatal(err)
		}
		m := map[wire.OutPoint]rpc.Output{}
		for _, o := range outs {
			m[o.OutPoint] = o
		}
		return m
	}
	// 101 coinbases, of which blocks 1 and 2 are mature.
	before := list()
	if len(before) != 2 {
		t.Fatalf("%d spendable outputs, want the 2 mature coinbases", len(before))
	}
	for _, o := range before {
		if !o.Coinbase || o.Value != 50_00000000 || o.Confirmations < rpc.CoinbaseMaturity {
			t.Errorf("output %+v: want a mature 50 BTC coinbase", o)
		}
	}
	sent, err := b.Send(context.Background(), recipient(t, "spendable", "p2wpkh"), noRecord)
	if err != nil {
		t.Fatal(err)
	}
	tx := checkSent(t, sent)
	after := list()
	if len(after) != 1 {
		t.Fatalf("%d spendable outputs after a mempool spend, want 1", len(after))
	}
	if _, ok := after[tx.TxIn[0].PreviousOutPoint]; ok {
		t.Fatal("an output spent in the mempool is listed as spendable")
	}
	// Once mined, the change (unconfirmed until then) is listed, and a third coinbase matures.
	node.Generate(t, 1)
	mined := list()
	if len(mined) != 3 {
		t.Fatalf("%d spendable outputs after a block, want 3 (change + 2 coinbases)", len(mined))
	}
	if _, ok := mined[wire.OutPoint{Hash: tx.TxHash(), Index: 1}]; !ok {
		t.Error("the change output is not listed after it was mined")
	}
}

func TestBTCOutOfCoins(t *testing.T) {
	t.Parallel()
	node := fundedNode(t, testKey("out-of-coins miner"))
	b := newTestBTC(t, node, testKey("out-of-coins empty"), 0)
	_, err := b.Send(context.Background(), recipient(t, "out", "p2wpkh"), noRecord)
	if stxgraph.ErrorCode(err) != stxgraph.EUNAVAILABLE || !strings.Contains(stxgraph.ErrorMessage(err), "out of coins") {
		t.Fatalf("got %v (%s), want EUNAVAILABLE out of coins", err, stxgraph.ErrorCode(err))
	}
}

func TestBTCNotConfigured(t *testing.T) {
	t.Parallel()
	full := BTCConfig{RPCHost: "127.0.0.1", RPCPort: 18443, RPCUser: "u", RPCPassword: "p", PrivateKeyHex: testKey("config")}
	for name, edit := range map[string]func(*BTCConfig){
		"host": func(c *BTCConfig) { c.RPCHost = "" }, "port": func(c *BTCConfig) { c.RPCPort = 0 },
		"user": func(c *BTCConfig) { c.RPCUser = "" }, "password": func(c *BTCConfig) { c.RPCPassword = "" },
		"key": func(c *BTCConfig) { c.PrivateKeyHex = "" },
	} {
		cfg := full
		edit(&cfg)
		_, err := NewBTC(cfg)
		if stxgraph.ErrorCode(err) != stxgraph.EFORBIDDEN || stxgraph.ErrorMessage(err) != "BTC faucet is not fully configured" {
			t.Errorf("without %s: %v (%s), want EFORBIDDEN", name, err, stxgraph.ErrorCode(err))
		}
	}
	b, err := NewBTC(full)
	if err != nil {
		t.Fatalf("complete config: %v", err)
	}
	b.Close()
	for _, bad := range []BTCConfig{
		{RPCHost: "h", RPCPort: 1, RPCUser: "u", RPCPassword: "p", PrivateKeyHex: "zz"},
		{RPCHost: "h", RPCPort: 1, RPCUser: "u", RPCPassword: "p", PrivateKeyHex: full.PrivateKeyHex, Network: "mainnet"},
	} {
		_, err := NewBTC(bad)
		if err == nil || stxgraph.ErrorCode(err) != stxgraph.EINTERNAL {
			t.Errorf("NewBTC(%+v) = %v, want a configuration error", bad.Network, err)
		}
		if err != nil && strings.Contains(err.Error(), full.PrivateKeyHex) {
			t.Error("the error shows the private key")
		}
	}
}

func TestBTCAddresses(t *testing.T) {
	t.Parallel()
	b, err := NewBTC(BTCConfig{RPCHost: "127.0.0.1", RPCPort: 1, RPCUser: "u", RPCPassword: "p", PrivateKeyHex: testKey("addr"), Network: "regtest"})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := NewBTC(BTCConfig{RPCHost: "127.0.0.1", RPCPort: 1, RPCUser: "u", RPCPassword: "p", PrivateKeyHex: testKey("addr"), Network: "testnet"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		faucet *BTC
		addr   string
		want   string // "" when valid, else a part of the message
	}{
		{b, "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", ""},
		{b, "bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6", ""},
		{b, "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn", ""},
		{b, "2N74VLxyT79VGHiBK2zEg3a9HJG7rEc5F3o", ""},
		{b, " bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080 ", ""},
		{tb, "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", ""},
		{tb, "tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47zagq", ""},
		{b, "", "address is required"},
		{b, "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "mainnet"},
		{b, "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "mainnet"},
		{b, "3P14159f73E4gFr7JterCCQh9QjiTjiZrG", "mainnet"},
		{b, "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", "mainnet"},
		{b, "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", "not a valid Bitcoin regtest address"},
		{tb, "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", "not a valid Bitcoin testnet address"},
		{b, "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfm", "not a valid"},                                                       // bad checksum
		{b, "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt081", "not a valid"},                                             // bad checksum
		{b, "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", "not a valid"},                                             // v0 with a bech32m checksum
		{b, "ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQVX8X0G", "not a valid"},                                                // a Stacks address
		{b, "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", "not an address the faucet pays to"}, // a bare public key
		{b, strings.Repeat("x", 500), "not a valid"},
	} {
		_, err := tt.faucet.parseAddress(tt.addr)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v", tt.addr, err)
		case tt.want != "" && (stxgraph.ErrorCode(err) != stxgraph.EINVALID || !strings.Contains(stxgraph.ErrorMessage(err), tt.want)):
			t.Errorf("%q: %v (%s), want EINVALID with %q", tt.addr, err, stxgraph.ErrorCode(err), tt.want)
		}
	}
	// Send validates before it contacts the node (which does not exist here).
	if _, err := b.Send(context.Background(), "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", noRecord); stxgraph.ErrorCode(err) != stxgraph.EINVALID {
		t.Errorf("Send to a mainnet address: %v, want EINVALID", err)
	}
}

// A node that does not answer gives EUNAVAILABLE with a message that names neither the node nor
// its credentials.
func TestBTCNodeDown(t *testing.T) {
	t.Parallel()
	key := testKey("down")
	b, err := NewBTC(BTCConfig{RPCHost: "127.0.0.1", RPCPort: 9, RPCUser: "secret-user", RPCPassword: "secret-pass", PrivateKeyHex: key, Backend: "btcd"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, err = b.Send(context.Background(), recipient(t, "down", "p2wpkh"), noRecord)
	if stxgraph.ErrorCode(err) != stxgraph.EUNAVAILABLE {
		t.Fatalf("got %v (%s), want EUNAVAILABLE", err, stxgraph.ErrorCode(err))
	}
	for _, secret := range []string{"127.0.0.1", ":9", "secret-user", "secret-pass", key} {
		if strings.Contains(stxgraph.ErrorMessage(err), secret) {
			t.Errorf("message %q shows %q", stxgraph.ErrorMessage(err), secret)
		}
	}
}

// noRecord is the record step of a payout outside the Service: nothing to keep.
func noRecord(Sent) error { return nil }

// A payout whose record step fails is never broadcast; resending the signed transaction pays
// it, and resending it again finds it already known.
func TestBTCResend(t *testing.T) {
	t.Parallel()
	key := testKey("resend")
	node := fundedNode(t, key)
	b := newTestBTC(t, node, key, 0)
	to := recipient(t, "resend", "p2wpkh")

	var signed Sent
	refuse := errors.New("the database is down")
	if _, err := b.Send(context.Background(), to, func(s Sent) error { signed = s; return refuse }); !errors.Is(err, refuse) {
		t.Fatalf("Send with a failing record: %v, want the record's error", err)
	}
	checkSent(t, signed)
	for range 2 {
		if err := b.Resend(context.Background(), signed); err != nil {
			t.Fatalf("Resend: %v", err)
		}
	}
	node.Generate(t, 1)
	holds(t, node, confirmedTx(t, node, signed.TxID, 1), to, 100_000_000)
	if err := b.Resend(context.Background(), signed); err != nil {
		t.Errorf("Resend of a mined payout: %v", err)
	}
}
