package faucet

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/faucet/pgstore"
	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/node"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// STX faucet defaults.
const (
	DefaultSTXAmount          uint64 = 500_000_000 // 500 STX in µSTX
	DefaultStackingPadPercent uint64 = 20          // above the node's stacking minimum
	Memo                             = "faucet"
)

// STXConfig configures the STX sender.
type STXConfig struct {
	Node  *node.Client
	Store *db.Store // indexed nonces, and the nonce lock shared by every API process
	// Keys are hex private keys (32 bytes, or 33 ending in 01 for a compressed public key), as
	// FAUCET_PRIVATE_KEY lists them comma-separated.
	Keys []string
	// Amount is the µSTX of one payout (DefaultSTXAmount when 0); a stacking payout is the
	// node's stacking minimum plus StackingPadPercent (DefaultStackingPadPercent when 0).
	Amount             uint64
	StackingPadPercent uint64
	ChainID            uint32 // tx.ChainIDTestnet when 0
}

// STX signs and broadcasts STX token transfers from the faucet keys.
type STX struct {
	cfg  STXConfig
	rows *pgstore.Store
	keys []*stxKey
	cur  atomic.Uint32 // index of the key payouts start from
}

// stxKey is one faucet key; mu serialises its payouts so that each gets the next nonce.
type stxKey struct {
	priv       *secp256k1.PrivateKey
	compressed bool
	addr       string
	mu         sync.Mutex
	next       uint64 // the nonce after the last one this process broadcast
}

// SplitKeys splits a comma-separated FAUCET_PRIVATE_KEY value, dropping empty entries.
func SplitKeys(s string) []string {
	var keys []string
	for _, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// NewSTX parses the keys. With no keys the STX faucet is off (nil, nil).
func NewSTX(cfg STXConfig) (*STX, error) {
	if len(cfg.Keys) == 0 {
		return nil, nil
	}
	if cfg.Node == nil || cfg.Store == nil {
		return nil, configError("the STX faucet needs a stacks-node and the database")
	}
	if cfg.Amount == 0 {
		cfg.Amount = DefaultSTXAmount
	}
	if cfg.StackingPadPercent == 0 {
		cfg.StackingPadPercent = DefaultStackingPadPercent
	}
	if cfg.ChainID == 0 {
		cfg.ChainID = tx.ChainIDTestnet
	}
	x := &STX{cfg: cfg, rows: pgstore.New(cfg.Store)}
	for i, k := range cfg.Keys {
		priv, compressed, err := tx.ParsePrivateKey(k)
		if err != nil {
			// The parse error may quote the input; name the entry only.
			return nil, configError("FAUCET_PRIVATE_KEY entry %d is not a hex private key (32 bytes, or 33 ending in 01)", i+1)
		}
		x.keys = append(x.keys, &stxKey{priv: priv, compressed: compressed, addr: keyAddress(priv, compressed)})
	}
	return x, nil
}

// keyAddress is the testnet address of a key, derived the way the chain derives a sender.
func keyAddress(priv *secp256k1.PrivateKey, compressed bool) string {
	t, _ := tx.NewTokenTransfer(tx.TransferOptions{})
	t.SignSingleSig(priv, compressed) //nolint:errcheck // P2PKH signing only fails for other hash modes
	return t.Origin.Address(false).String()
}

// Addresses returns the faucet keys' testnet addresses, in FAUCET_PRIVATE_KEY order.
func (x *STX) Addresses() []string {
	out := make([]string, len(x.keys))
	for i, k := range x.keys {
		out[i] = k.addr
	}
	return out
}

// rotates names the node's answers after which the next key is tried: this key's nonce chain
// is stuck or it has no coins.
var rotates = map[string]bool{"ConflictingNonceInMempool": true, "TooMuchChaining": true, "NotEnoughFunds": true}

// Send pays the faucet amount, or with stacking the stacking minimum plus the pad, to recipient.
// Each signed transfer goes to record before it is broadcast, and is not broadcast when record
// fails.
func (x *STX) Send(ctx context.Context, recipient c32.Principal, stacking bool, record func(Sent) error) (Sent, error) {
	amount := x.cfg.Amount
	if stacking {
		minimum, err := x.cfg.Node.StackingMinimum(ctx)
		if err != nil {
			return Sent{}, err
		}
		// minimum × (100 + pad) / 100, rounded down, without overflowing.
		pad := x.cfg.StackingPadPercent
		amount = minimum + minimum/100*pad + minimum%100*pad/100
	}
	start := int(x.cur.Load())
	var err error
	for i := range x.keys {
		idx := (start + i) % len(x.keys)
		var sent Sent
		sent, err = x.sendFrom(ctx, x.keys[idx], recipient, amount, record)
		if err == nil {
			x.cur.Store(uint32(idx))
			return sent, nil
		}
		var rej *node.Rejection
		if !errors.Is(err, errOutOfFunds) && !(errors.As(err, &rej) && rotates[rej.Reason]) {
			return Sent{}, err
		}
		slog.WarnContext(ctx, "STX faucet key skipped", "sender", x.keys[idx].addr, "err", err)
	}
	return Sent{}, err
}

// sendFrom builds, signs and broadcasts one transfer from k with the next free nonce: the
// highest of the node's, the indexer's (confirmed and mempool), the one stored for every API
// process, and the one this process last used.
func (x *STX) sendFrom(ctx context.Context, k *stxKey, recipient c32.Principal, amount uint64, record func(Sent) error) (Sent, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	acct, err := x.cfg.Node.Account(ctx, k.addr)
	if err != nil {
		return Sent{}, err
	}
	rate, err := x.cfg.Node.TransferFeeRate(ctx)
	if err != nil {
		return Sent{}, err
	}
	indexed, err := x.cfg.Store.NoncesOf(ctx, []string{k.addr})
	if err != nil {
		return Sent{}, err
	}
	var indexedNext uint64
	if len(indexed) == 1 && indexed[0].PossibleNextNonce > 0 {
		indexedNext = uint64(indexed[0].PossibleNextNonce)
	}
	base := max(acct.Nonce, indexedNext)
	var sent Sent
	err = x.rows.WithNonce(ctx, k.addr, func(stored uint64) (uint64, error) {
		nonce := max(base, stored, k.next)
		t, err := x.transfer(k, recipient, amount, nonce, rate)
		if err != nil {
			return stored, err
		}
		fee := new(big.Int).SetUint64(t.Origin.Fee)
		if acct.Balance.Cmp(fee.Add(fee, new(big.Int).SetUint64(amount))) < 0 {
			return stored, errOutOfFunds
		}
		raw := t.Encode()
		signed := Sent{TxID: t.TxIDHex(), TxRaw: hex.EncodeToString(raw)}
		if err := record(signed); err != nil {
			return stored, err
		}
		txid, err := x.cfg.Node.Broadcast(ctx, raw)
		var rej *node.Rejection
		switch {
		case errors.As(err, &rej) && rej.Reason == "ConflictingNonceInMempool":
			// Someone else's transaction holds this nonce: never reuse it.
			k.next = nonce + 1
			return k.next, err
		case errors.As(err, &rej) && (rej.Reason == "TooMuchChaining" || rej.Reason == "BadNonce"):
			// Our count ran ahead of the chain (transactions dropped from the mempool, a reset
			// testnet) or behind it: start again from what the node and the index know.
			k.next = base
			return base, err
		case errors.As(err, &rej):
			return stored, err
		case err != nil:
			return stored, &unknownOutcome{err}
		}
		if strings.TrimPrefix(signed.TxID, "0x") != txid {
			slog.WarnContext(ctx, "stacks-node reported another txid", "txid", signed.TxID, "node_txid", txid)
		}
		k.next = nonce + 1
		sent = signed
		return k.next, nil
	})
	return sent, err
}

// Resend broadcasts a recorded payout again. The node accepts a transaction its mempool already
// holds; one it refuses was paid if the index has it mined, and otherwise can never be (its nonce
// went to another transaction).
func (x *STX) Resend(ctx context.Context, s Sent) error {
	raw, err := hex.DecodeString(s.TxRaw)
	if err != nil {
		return fmt.Errorf("recorded payout %s: %w", s.TxID, err)
	}
	_, err = x.cfg.Node.Broadcast(ctx, raw)
	var rej *node.Rejection
	if !errors.As(err, &rej) {
		return err
	}
	id, err := hex.DecodeString(strings.TrimPrefix(s.TxID, "0x"))
	if err != nil {
		return fmt.Errorf("recorded payout %s: %w", s.TxID, err)
	}
	mined, err := x.cfg.Store.CanonicalTxsByID(ctx, []string{string(id)}, true, db.AllTxColumns)
	switch {
	case err != nil:
		return err
	case len(mined) > 0:
		return nil
	}
	return errNotPaid
}

// transfer builds and signs the payout; the fee is the node's rate times the signed size, never
// below one µSTX per byte (the mempool's minimum). The size does not depend on the fee's value.
func (x *STX) transfer(k *stxKey, recipient c32.Principal, amount, nonce, rate uint64) (*tx.Transaction, error) {
	t, err := tx.NewTokenTransfer(tx.TransferOptions{
		Recipient: recipient, Amount: amount, Memo: Memo, Nonce: nonce, ChainID: x.cfg.ChainID,
	})
	if err != nil {
		return nil, err
	}
	if err := t.SignSingleSig(k.priv, k.compressed); err != nil {
		return nil, err
	}
	size := uint64(len(t.Encode()))
	t.Origin.Fee = max(rate*size, size)
	if err := t.SignSingleSig(k.priv, k.compressed); err != nil {
		return nil, err
	}
	return t, nil
}
