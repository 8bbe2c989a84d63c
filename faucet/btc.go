package faucet

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcjson"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/bitcoin/rpc"
)

// BTCConfig configures the BTC faucet.
type BTCConfig struct {
	RPCHost     string
	RPCPort     int
	RPCUser     string
	RPCPassword string
	// PrivateKeyHex is the faucet's secp256k1 private key (32 bytes, hex). Its coins sit at the
	// P2PKH and the P2WPKH address of its compressed public key.
	PrivateKeyHex string
	Network       string // "regtest" (default) or "testnet"
	AmountSats    int64  // per request; 100000000 (1 BTC) when 0
	// FallbackFeeRate (sat/vB) is used while the node has no fee estimate; 10 when 0.
	FallbackFeeRate int64
	Backend         string // "bitcoind", "btcd", or "" to ask the node
}

// Defaults of BTCConfig.
const (
	DefaultBTCAmount       int64 = 100_000_000
	DefaultBTCFallbackRate int64 = 10
)

// feeTarget is the confirmation target (blocks) of the fee estimate.
const feeTarget = 6

// dustLimit is the smallest output the faucet creates: a smaller change is left to the fee.
const dustLimit = 546

// broadcastAttempts bounds the retries when the node rejects a transaction whose inputs another
// spender (another process with the same key) took first.
const broadcastAttempts = 3

// BTC is the Bitcoin testnet/regtest faucet: it builds, signs and broadcasts its own
// transactions from the coins of one key.
type BTC struct {
	cfg    BTCConfig
	params *chaincfg.Params
	key    *btcec.PrivateKey
	p2pkh  address.Address
	p2wpkh address.Address

	nodeMu sync.Mutex
	node   *rpc.Client // connected on first use, so that the API starts while the node is down

	mu       sync.Mutex
	changed  chan struct{}                // closed and replaced whenever coins are released or added
	locked   map[wire.OutPoint]*lock      // outputs this process spends (in flight or broadcast)
	pending  map[wire.OutPoint]rpc.Output // this process's unconfirmed change
	inFlight int                          // requests holding locked outputs not yet broadcast
	seq      uint64                       // counts broadcasts and output listings, to order them
}

type lock struct {
	broadcast   bool
	broadcastAt uint64 // seq when the spending transaction was accepted
}

// NewBTC checks the configuration and derives the faucet's addresses; it does not contact the
// node. A missing setting gives an EFORBIDDEN error (the faucet is switched off); a malformed
// one a plain error.
func NewBTC(cfg BTCConfig) (*BTC, error) {
	if cfg.RPCHost == "" || cfg.RPCPort == 0 || cfg.RPCUser == "" || cfg.RPCPassword == "" || cfg.PrivateKeyHex == "" {
		return nil, stxgraph.Errorf(stxgraph.EFORBIDDEN, "BTC faucet is not fully configured")
	}
	b := &BTC{cfg: cfg, changed: make(chan struct{}), locked: map[wire.OutPoint]*lock{}, pending: map[wire.OutPoint]rpc.Output{}}
	switch cfg.Network {
	case "", "regtest":
		b.params = &chaincfg.RegressionNetParams
	case "testnet":
		b.params = &chaincfg.TestNet3Params
	default:
		return nil, fmt.Errorf("BTC faucet network %q: want regtest or testnet", cfg.Network)
	}
	switch rpc.Backend(cfg.Backend) {
	case "", rpc.Bitcoind, rpc.Btcd:
	default:
		return nil, fmt.Errorf("BTC faucet node backend %q: want bitcoind, btcd or empty", cfg.Backend)
	}
	if b.cfg.AmountSats == 0 {
		b.cfg.AmountSats = DefaultBTCAmount
	}
	if b.cfg.AmountSats < dustLimit {
		return nil, fmt.Errorf("BTC faucet amount %d sats is below the dust limit", b.cfg.AmountSats)
	}
	if b.cfg.FallbackFeeRate <= 0 {
		b.cfg.FallbackFeeRate = DefaultBTCFallbackRate
	}
	raw, err := hex.DecodeString(strings.TrimPrefix(cfg.PrivateKeyHex, "0x"))
	// A 33-byte key ending in 01 is the "compressed" form some tools print.
	if err == nil && len(raw) == 33 && raw[32] == 1 {
		raw = raw[:32]
	}
	if err != nil || len(raw) != 32 {
		return nil, errors.New("BTC faucet private key: want 32 bytes in hex")
	}
	b.key, _ = btcec.PrivKeyFromBytes(raw)
	pkh := address.Hash160(b.key.PubKey().SerializeCompressed())
	if b.p2pkh, err = address.NewAddressPubKeyHash(pkh, b.params); err != nil {
		return nil, err
	}
	if b.p2wpkh, err = address.NewAddressWitnessPubKeyHash(pkh, b.params); err != nil {
		return nil, err
	}
	return b, nil
}

// Addresses are the faucet's own addresses: P2PKH (where a regtest set-up mines to) and P2WPKH
// (where change goes).
func (b *BTC) Addresses() (p2pkh, p2wpkh string) {
	return b.p2pkh.EncodeAddress(), b.p2wpkh.EncodeAddress()
}

// Close releases the node connection.
func (b *BTC) Close() {
	b.nodeMu.Lock()
	defer b.nodeMu.Unlock()
	if b.node != nil {
		b.node.Close()
		b.node = nil
	}
}

// Send pays the configured amount to address and returns the broadcast transaction. Each signed
// transaction goes to record before it is broadcast, and is not broadcast when record fails.
func (b *BTC) Send(ctx context.Context, addr string, record func(Sent) error) (Sent, error) {
	to, err := b.parseAddress(addr)
	if err != nil {
		return Sent{}, err
	}
	node, err := b.connect(ctx)
	if err != nil {
		return Sent{}, err
	}
	rate := b.feeRate(ctx, node)
	for attempt := 1; ; attempt++ {
		sent, retry, err := b.send(ctx, node, to, rate, record)
		if err == nil || !retry || attempt == broadcastAttempts {
			return sent, err
		}
	}
}

// send makes one attempt; retry says whether the node rejected inputs that a fresh listing may
// replace.
func (b *BTC) send(ctx context.Context, node *rpc.Client, to address.Address, rate int64, record func(Sent) error) (Sent, bool, error) {
	toScript, err := txscript.PayToAddrScript(to)
	if err != nil {
		return Sent{}, false, stxgraph.Errorf(stxgraph.EINVALID, "cannot pay to %s", to.EncodeAddress())
	}
	changeScript, _ := txscript.PayToAddrScript(b.p2wpkh)
	inputs, change, err := b.reserve(ctx, node, rate, len(toScript))
	if err != nil {
		return Sent{}, false, err
	}
	tx, err := b.sign(inputs, toScript, changeScript, change)
	if err != nil {
		b.release(inputs, false)
		slog.Error("BTC faucet: signing failed", "err", err)
		return Sent{}, false, stxgraph.Errorf(stxgraph.EINTERNAL, "the BTC faucet could not sign its transaction")
	}
	var raw strings.Builder
	_ = tx.Serialize(hex.NewEncoder(&raw))
	signed := Sent{TxID: tx.TxHash().String(), TxRaw: raw.String()}
	if err := record(signed); err != nil {
		b.release(inputs, false)
		return Sent{}, false, err
	}
	// Once sent, the transaction may be relayed even if the caller goes away: finish the call so
	// that its outputs are accounted for.
	txid, err := node.Send(context.WithoutCancel(ctx), tx)
	if err != nil {
		rerr, rejected := rpc.IsRPCError(err)
		b.release(inputs, rejected && inputsGone(rerr))
		if !rejected {
			slog.Warn("BTC faucet: broadcast failed", "err", err)
			return Sent{}, false, &unknownOutcome{errUnavailable}
		}
		slog.Warn("BTC faucet: node rejected transaction", "code", rerr.Code, "reason", rerr.Message)
		if inputsGone(rerr) {
			return Sent{}, true, stxgraph.Errorf(stxgraph.EUNAVAILABLE, "the BTC faucet's coins are being spent elsewhere; please try again")
		}
		return Sent{}, false, stxgraph.Errorf(stxgraph.EINTERNAL, "the Bitcoin node rejected the faucet transaction")
	}
	b.broadcast(tx, inputs, changeScript)
	if got := tx.TxHash(); *txid != got {
		slog.Warn("BTC faucet: node reported another transaction id", "node", txid.String(), "computed", got.String())
	}
	return signed, false, nil
}

// Resend broadcasts a recorded payout again. The node answers that it already has a transaction
// in its mempool or chain; any other refusal means its coins went to another transaction, so it
// can never be paid.
func (b *BTC) Resend(ctx context.Context, s Sent) error {
	raw, err := hex.DecodeString(s.TxRaw)
	if err != nil {
		return fmt.Errorf("recorded payout %s: %w", s.TxID, err)
	}
	var tx wire.MsgTx
	if err := tx.Deserialize(bytes.NewReader(raw)); err != nil {
		return fmt.Errorf("recorded payout %s: %w", s.TxID, err)
	}
	node, err := b.connect(ctx)
	if err != nil {
		return err
	}
	_, err = node.Send(ctx, &tx)
	rerr, rejected := rpc.IsRPCError(err)
	switch {
	case err == nil:
		return nil
	case !rejected:
		slog.Warn("BTC faucet: broadcast failed", "err", err)
		return errUnavailable
	case alreadyKnown(rerr):
		return nil
	}
	return errNotPaid
}

// alreadyKnown tells the node's refusals of a transaction it already has (bitcoind:
// txn-already-in-mempool, "Transaction already in block chain", "outputs already in utxo set";
// btcd: "already have transaction", "transaction already exists").
func alreadyKnown(err *btcjson.RPCError) bool {
	m := strings.ToLower(err.Message)
	return strings.Contains(m, "already")
}

// inputsGone tells the node's rejections of spent or unknown inputs (bitcoind: missing-inputs,
// txn-mempool-conflict, bad-txns-inputs-missingorspent; btcd: "already spent", "orphan").
func inputsGone(err *btcjson.RPCError) bool {
	m := strings.ToLower(err.Message)
	for _, s := range []string{"missing", "spent", "conflict", "orphan"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

var errUnavailable = stxgraph.Errorf(stxgraph.EUNAVAILABLE, "the Bitcoin node is unavailable; please try again later")

// connect returns the node client, creating it (and learning the node's kind) on first use.
func (b *BTC) connect(ctx context.Context) (*rpc.Client, error) {
	b.nodeMu.Lock()
	defer b.nodeMu.Unlock()
	if b.node != nil {
		return b.node, nil
	}
	node, err := rpc.New(ctx, rpc.Config{Host: b.cfg.RPCHost, Port: b.cfg.RPCPort, User: b.cfg.RPCUser, Password: b.cfg.RPCPassword, Backend: rpc.Backend(b.cfg.Backend)})
	if err != nil {
		slog.Warn("BTC faucet: cannot reach the Bitcoin node", "err", err)
		return nil, errUnavailable
	}
	chain, err := node.Chain(ctx)
	if err != nil {
		node.Close()
		slog.Warn("BTC faucet: cannot read the node's chain", "err", err)
		return nil, errUnavailable
	}
	if !b.chainMatches(chain) {
		node.Close()
		slog.Error("BTC faucet: the node is on another network", "node_chain", chain, "faucet_network", b.params.Name)
		return nil, stxgraph.Errorf(stxgraph.EFORBIDDEN, "the BTC faucet is only available on testnet and regtest")
	}
	b.node = node
	return node, nil
}

// chainMatches compares getblockchaininfo's chain name ("main", "test", "testnet4", "regtest"…)
// with the configured network.
func (b *BTC) chainMatches(chain string) bool {
	if b.params.Net == chaincfg.RegressionNetParams.Net {
		return chain == "regtest"
	}
	return chain != "main" && chain != "mainnet" && chain != "regtest" && chain != "simnet"
}

func (b *BTC) feeRate(ctx context.Context, node *rpc.Client) int64 {
	rate, ok, err := node.FeeRate(ctx, feeTarget)
	if err != nil {
		slog.Debug("BTC faucet: no fee estimate", "err", err)
	}
	if err != nil || !ok {
		return b.cfg.FallbackFeeRate
	}
	return max(rate, 1)
}

// reserve picks and locks the outputs of one payment, largest confirmed coins first, then this
// process's unconfirmed change. While the coins it needs are held by requests in flight (whose
// change comes back) it waits for them; with nothing in flight, too few coins mean the faucet
// is out of coins.
func (b *BTC) reserve(ctx context.Context, node *rpc.Client, rate int64, toScriptLen int) ([]rpc.Output, int64, error) {
	for {
		b.mu.Lock()
		b.seq++
		listedAt := b.seq
		b.mu.Unlock()
		confirmed, err := node.Spendable(ctx, []address.Address{b.p2pkh, b.p2wpkh})
		if err != nil {
			if ctx.Err() != nil {
				return nil, 0, ctx.Err()
			}
			slog.Warn("BTC faucet: listing the faucet's coins failed", "err", err)
			return nil, 0, errUnavailable
		}

		b.mu.Lock()
		b.forget(confirmed, listedAt)
		candidates := b.candidates(confirmed)
		inputs, change, ok := selectCoins(candidates, b.cfg.AmountSats, rate, toScriptLen)
		if ok {
			for _, in := range inputs {
				b.locked[in.OutPoint] = &lock{}
			}
			b.inFlight++
			b.mu.Unlock()
			return inputs, change, nil
		}
		if b.inFlight == 0 {
			total := int64(0)
			for _, c := range candidates {
				total += c.Value
			}
			b.mu.Unlock()
			slog.Warn("BTC faucet: out of coins", "spendable_sats", total, "address", b.p2pkh.EncodeAddress())
			return nil, 0, stxgraph.Errorf(stxgraph.EUNAVAILABLE, "the BTC faucet is out of coins; please try again later")
		}
		wait := b.changed
		b.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
}

// forget drops locks on outputs that a listing started after their spend was accepted no longer
// shows (the spend is known to the node for good), and pending change that is now confirmed.
// Called with b.mu held.
func (b *BTC) forget(confirmed []rpc.Output, listedAt uint64) {
	listed := make(map[wire.OutPoint]bool, len(confirmed))
	for _, o := range confirmed {
		listed[o.OutPoint] = true
		delete(b.pending, o.OutPoint)
	}
	for op, l := range b.locked {
		if l.broadcast && l.broadcastAt < listedAt && !listed[op] {
			delete(b.locked, op)
		}
	}
}

// candidates are the outputs free to spend, confirmed ones first. Called with b.mu held.
func (b *BTC) candidates(confirmed []rpc.Output) []rpc.Output {
	var out, unconfirmed []rpc.Output
	for _, o := range confirmed {
		if b.locked[o.OutPoint] == nil {
			out = append(out, o)
		}
	}
	for op, o := range b.pending {
		if b.locked[op] == nil {
			unconfirmed = append(unconfirmed, o)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Value > out[j].Value })
	sort.Slice(unconfirmed, func(i, j int) bool { return unconfirmed[i].Value > unconfirmed[j].Value })
	return append(out, unconfirmed...)
}

// release frees the outputs of a payment that was not broadcast; gone drops this process's
// unconfirmed change among them, which the node no longer knows.
func (b *BTC) release(inputs []rpc.Output, gone bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, in := range inputs {
		delete(b.locked, in.OutPoint)
		if gone {
			delete(b.pending, in.OutPoint)
		}
	}
	b.inFlight--
	b.notify()
}

// broadcast records an accepted payment: its inputs stay locked, its change becomes spendable.
func (b *BTC) broadcast(tx *wire.MsgTx, inputs []rpc.Output, changeScript []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	for _, in := range inputs {
		b.locked[in.OutPoint] = &lock{broadcast: true, broadcastAt: b.seq}
		delete(b.pending, in.OutPoint)
	}
	hash := tx.TxHash()
	for i, out := range tx.TxOut {
		if string(out.PkScript) == string(changeScript) {
			op := wire.OutPoint{Hash: hash, Index: uint32(i)}
			b.pending[op] = rpc.Output{OutPoint: op, Value: out.Value, PkScript: out.PkScript}
		}
	}
	b.inFlight--
	b.notify()
}

// notify wakes the requests waiting for coins. Called with b.mu held.
func (b *BTC) notify() {
	close(b.changed)
	b.changed = make(chan struct{})
}
