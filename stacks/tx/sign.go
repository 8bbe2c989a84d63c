package tx

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // RIPEMD-160 is part of the Stacks address format.

	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/clarity"
)

// TransferOptions describes an STX token transfer to build. Zero values select what
// @stacks/transactions v7 makeSTXTokenTransfer does: anchor mode "any", post-condition mode
// "deny", and the network's default chain id.
type TransferOptions struct {
	Recipient         c32.Principal
	Amount            uint64
	Memo              string // at most MemoLen bytes, zero-padded on the wire
	Nonce             uint64
	Fee               uint64 // total fee in µSTX
	Mainnet           bool
	ChainID           uint32
	AnchorMode        AnchorMode
	PostConditionMode PostConditionMode
}

// NewTokenTransfer builds an unsigned single-sig (P2PKH) token transfer; SignSingleSig fills in
// the signer and signature.
func NewTokenTransfer(opts TransferOptions) (*Transaction, error) {
	if len(opts.Memo) > MemoLen {
		return nil, fmt.Errorf("memo is %d bytes, at most %d fit", len(opts.Memo), MemoLen)
	}
	if opts.Recipient.IsContract() && !c32.ValidContractName(opts.Recipient.ContractName) {
		return nil, fmt.Errorf("invalid recipient contract name %q", opts.Recipient.ContractName)
	}
	if opts.Recipient.Address.Version > c32.MaxVersion {
		return nil, fmt.Errorf("invalid recipient address version %d", opts.Recipient.Address.Version)
	}
	version, chainID := VersionTestnet, ChainIDTestnet
	if opts.Mainnet {
		version, chainID = VersionMainnet, ChainIDMainnet
	}
	if opts.ChainID != 0 {
		chainID = opts.ChainID
	}
	t := &Transaction{
		Version:           version,
		ChainID:           chainID,
		Auth:              AuthStandard,
		Origin:            SpendingCondition{HashMode: HashP2PKH, Nonce: opts.Nonce, Fee: opts.Fee},
		AnchorMode:        opts.AnchorMode,
		PostConditionMode: opts.PostConditionMode,
		PostConditions:    []PostCondition{},
	}
	if t.AnchorMode == 0 {
		t.AnchorMode = AnchorAny
	}
	if t.PostConditionMode == 0 {
		t.PostConditionMode = PostConditionDeny
	}
	p := &TokenTransfer{Recipient: opts.Recipient, Amount: opts.Amount}
	copy(p.Memo[:], opts.Memo)
	t.Payload = p
	return t, nil
}

// ParsePrivateKey reads a hex private key the way stacks.js does: 33 bytes ending in 01 means
// "use the compressed public key", a bare 32 bytes means uncompressed (a different address).
func ParsePrivateKey(s string) (key *secp256k1.PrivateKey, compressed bool, err error) {
	b, err := clarity.ParseHex(strings.TrimSpace(s))
	if err != nil {
		return nil, false, fmt.Errorf("private key: %w", err)
	}
	switch {
	case len(b) == 33 && b[32] == 0x01:
		compressed, b = true, b[:32]
	case len(b) == 32:
	default:
		return nil, false, fmt.Errorf("private key is %d bytes; want 32, or 33 ending in 01", len(b))
	}
	var scalar secp256k1.ModNScalar
	if overflow := scalar.SetByteSlice(b); overflow || scalar.IsZero() {
		return nil, false, errors.New("private key is not in [1, n-1]")
	}
	return secp256k1.NewPrivateKey(&scalar), compressed, nil
}

// SignSingleSig signs the transaction as its single-sig origin: it sets the signer hash and key
// encoding from the key, then signs the presign sighash (SIP-005 §"Transaction signing").
func (t *Transaction) SignSingleSig(priv *secp256k1.PrivateKey, compressed bool) error {
	c := &t.Origin
	if err := prepareSingleSig(c, priv, compressed); err != nil {
		return fmt.Errorf("origin: %w", err)
	}
	presign := presignSighash(t.InitialSighash(), AuthStandard, c.Fee, c.Nonce)
	c.Signature = signRecoverable(priv, presign, compressed)
	return nil
}

// SignSponsorSingleSig signs a sponsored transaction as its single-sig sponsor, continuing the
// sighash chain from the origin's (already present) signature.
func (t *Transaction) SignSponsorSingleSig(priv *secp256k1.PrivateKey, compressed bool) error {
	if t.Sponsor == nil {
		return errors.New("transaction is not sponsored")
	}
	originSighash, err := verifyCondition(&t.Origin, t.InitialSighash(), AuthStandard)
	if err != nil {
		return fmt.Errorf("origin must sign first: %w", err)
	}
	c := t.Sponsor
	if err := prepareSingleSig(c, priv, compressed); err != nil {
		return fmt.Errorf("sponsor: %w", err)
	}
	presign := presignSighash(originSighash, AuthSponsored, c.Fee, c.Nonce)
	c.Signature = signRecoverable(priv, presign, compressed)
	return nil
}

func prepareSingleSig(c *SpendingCondition, priv *secp256k1.PrivateKey, compressed bool) error {
	if !c.HashMode.IsSingleSig() {
		return fmt.Errorf("hash mode 0x%02x is not single-sig", byte(c.HashMode))
	}
	if c.HashMode == HashP2WPKH && !compressed {
		return errors.New("P2WPKH requires a compressed key")
	}
	c.KeyEncoding = KeyCompressed
	if !compressed {
		c.KeyEncoding = KeyUncompressed
	}
	signer, err := signerHash(c.HashMode, 1, [][]byte{serializeKey(priv.PubKey(), c.KeyEncoding)})
	c.Signer = signer
	return err
}

// InitialSighash hashes the transaction with the origin cleared (nonce, fee and signatures
// zeroed, multisig fields emptied) and the sponsor replaced by the signing sentinel.
func (t *Transaction) InitialSighash() [32]byte {
	c := *t
	c.Origin = t.Origin.cleared()
	if t.Sponsor != nil {
		c.Sponsor = &SpendingCondition{HashMode: HashP2PKH, KeyEncoding: KeyCompressed}
	}
	return sha512.Sum512_256(c.Encode())
}

func (c SpendingCondition) cleared() SpendingCondition {
	c.Nonce, c.Fee = 0, 0
	c.Signature = [65]byte{}
	c.Fields = nil
	return c
}

// presignSighash = SHA512/256(cur ‖ auth flag ‖ fee ‖ nonce).
func presignSighash(cur [32]byte, flag AuthType, fee, nonce uint64) [32]byte {
	b := make([]byte, 0, 49)
	b = append(append(b, cur[:]...), byte(flag))
	b = binary.BigEndian.AppendUint64(b, fee)
	b = binary.BigEndian.AppendUint64(b, nonce)
	return sha512.Sum512_256(b)
}

// postsignSighash = SHA512/256(presign ‖ key encoding ‖ signature), the next signer's sighash.
func postsignSighash(presign [32]byte, enc KeyEncoding, sig [65]byte) [32]byte {
	b := make([]byte, 0, 98)
	b = append(append(append(b, presign[:]...), byte(enc)), sig[:]...)
	return sha512.Sum512_256(b)
}

// compact signature header bytes as decred's SignCompact/RecoverCompact use them.
const (
	compactMagic      = 27
	compactCompressed = 4
)

// signRecoverable signs digest with RFC 6979 and low S, in Stacks' recid ‖ r ‖ s layout.
func signRecoverable(priv *secp256k1.PrivateKey, digest [32]byte, compressed bool) [65]byte {
	compact := ecdsa.SignCompact(priv, digest[:], compressed)
	recid := compact[0] - compactMagic
	if compressed {
		recid -= compactCompressed
	}
	var sig [65]byte
	sig[0] = recid
	copy(sig[1:], compact[1:])
	return sig
}

// recoverKey recovers the public key that made sig over the presign of cur.
func recoverKey(cur [32]byte, flag AuthType, c *SpendingCondition, enc KeyEncoding, sig [65]byte) (*secp256k1.PublicKey, [32]byte, error) {
	presign := presignSighash(cur, flag, c.Fee, c.Nonce)
	if sig[0] > 3 {
		return nil, presign, fmt.Errorf("signature recovery id %d is not in 0..3", sig[0])
	}
	var compact [65]byte
	compact[0] = compactMagic + sig[0]
	if enc == KeyCompressed {
		compact[0] += compactCompressed
	}
	copy(compact[1:], sig[1:])
	pub, _, err := ecdsa.RecoverCompact(compact[:], presign[:])
	if err != nil {
		return nil, presign, fmt.Errorf("recovering the public key: %w", err)
	}
	return pub, postsignSighash(presign, enc, sig), nil
}

// Verify checks every signature: it recovers the origin's (and sponsor's) public keys along the
// sighash chain and checks that they hash to the signer per the hash mode, as stacks-core does.
// Like consensus it accepts high-S signatures; the mempool's low-S rule is HasLowS.
func (t *Transaction) Verify() error {
	next, err := verifyCondition(&t.Origin, t.InitialSighash(), AuthStandard)
	if err != nil {
		return fmt.Errorf("origin: %w", err)
	}
	if t.Sponsor != nil {
		if _, err := verifyCondition(t.Sponsor, next, AuthSponsored); err != nil {
			return fmt.Errorf("sponsor: %w", err)
		}
	}
	return nil
}

// verifyCondition returns the sighash the next condition continues from.
func verifyCondition(c *SpendingCondition, initial [32]byte, flag AuthType) ([32]byte, error) {
	if c.HashMode.IsSingleSig() {
		if c.HashMode == HashP2WPKH && c.KeyEncoding != KeyCompressed {
			return initial, errors.New("P2WPKH requires a compressed key")
		}
		pub, next, err := recoverKey(initial, flag, c, c.KeyEncoding, c.Signature)
		if err != nil {
			return initial, err
		}
		return next, checkSigner(c, 1, [][]byte{serializeKey(pub, c.KeyEncoding)})
	}
	if err := checkSignatureCount(c); err != nil {
		return initial, err
	}
	cur := initial
	keys := make([][]byte, 0, len(c.Fields))
	for i, f := range c.Fields {
		enc := KeyCompressed
		if !f.Type.Compressed() {
			enc = KeyUncompressed
		}
		if !f.Type.IsSignature() {
			pub, err := secp256k1.ParsePubKey(f.PublicKey[:])
			if err != nil {
				return initial, fmt.Errorf("auth field %d: %w", i, err)
			}
			keys = append(keys, serializeKey(pub, enc))
			continue
		}
		// Order-independent signers all sign the initial sighash; sequential ones chain.
		base := cur
		if c.HashMode.IsOrderIndependent() {
			base = initial
		}
		pub, next, err := recoverKey(base, flag, c, enc, f.Signature)
		if err != nil {
			return initial, fmt.Errorf("auth field %d: %w", i, err)
		}
		cur = next
		keys = append(keys, serializeKey(pub, enc))
	}
	if err := checkSigner(c, int(c.SignaturesRequired), keys); err != nil {
		return initial, err
	}
	if c.HashMode.IsOrderIndependent() {
		return initial, nil
	}
	return cur, nil
}

// checkSignatureCount applies stacks-core's multisig rules before any (costly) key recovery:
// sequential conditions need exactly SignaturesRequired signatures, order-independent ones at
// least that many, and P2WSH conditions only compressed keys.
func checkSignatureCount(c *SpendingCondition) error {
	var sigs int
	var uncompressed bool
	for _, f := range c.Fields {
		if f.Type.IsSignature() {
			sigs++
		}
		uncompressed = uncompressed || !f.Type.Compressed()
	}
	switch {
	case c.HashMode.IsOrderIndependent() && sigs < int(c.SignaturesRequired):
		return fmt.Errorf("%d signatures, at least %d required", sigs, c.SignaturesRequired)
	case !c.HashMode.IsOrderIndependent() && sigs != int(c.SignaturesRequired):
		return fmt.Errorf("%d signatures, exactly %d required", sigs, c.SignaturesRequired)
	case uncompressed && (c.HashMode == HashP2WSH || c.HashMode == HashP2WSHOrderIndependent):
		return errors.New("uncompressed keys are not allowed in P2WSH")
	}
	return nil
}

func checkSigner(c *SpendingCondition, required int, keys [][]byte) error {
	h, err := signerHash(c.HashMode, required, keys)
	if err != nil {
		return err
	}
	if h != c.Signer {
		return fmt.Errorf("public keys hash to %x, signer is %x", h, c.Signer)
	}
	return nil
}

// HasLowS reports whether every signature has S ≤ n/2, which the mempool requires.
func (t *Transaction) HasLowS() bool {
	for _, c := range []*SpendingCondition{&t.Origin, t.Sponsor} {
		if c == nil {
			continue
		}
		if c.HashMode.IsSingleSig() && !lowS(c.Signature) {
			return false
		}
		for _, f := range c.Fields {
			if f.Type.IsSignature() && !lowS(f.Signature) {
				return false
			}
		}
	}
	return true
}

func lowS(sig [65]byte) bool {
	var s secp256k1.ModNScalar
	overflow := s.SetByteSlice(sig[33:])
	return !overflow && !s.IsOverHalfOrder()
}

func serializeKey(pub *secp256k1.PublicKey, enc KeyEncoding) []byte {
	if enc == KeyUncompressed {
		return pub.SerializeUncompressed()
	}
	return pub.SerializeCompressed()
}

func hash160(b []byte) [20]byte {
	sha := sha256.Sum256(b)
	r := ripemd160.New()
	r.Write(sha[:])
	return [20]byte(r.Sum(nil))
}

// signerHash derives a condition's signer from its public keys (stacks-common
// public_keys_to_address_hash): P2PKH hashes the key, P2SH a Bitcoin multisig redeem script, and
// the P2W* modes the corresponding segwit-in-P2SH witness programs.
func signerHash(mode HashMode, required int, keys [][]byte) ([20]byte, error) {
	switch mode {
	case HashP2PKH:
		return hash160(keys[0]), nil
	case HashP2WPKH:
		h := hash160(keys[0])
		return hash160(append([]byte{0x00, 0x14}, h[:]...)), nil
	}
	if required < 1 || required > len(keys) {
		return [20]byte{}, fmt.Errorf("%d signatures required of %d keys", required, len(keys))
	}
	redeem := pushInt(nil, required)
	for _, k := range keys {
		redeem = append(append(redeem, byte(len(k))), k...)
	}
	redeem = append(pushInt(redeem, len(keys)), 0xae) // OP_CHECKMULTISIG
	if mode == HashP2SH || mode == HashP2SHOrderIndependent {
		return hash160(redeem), nil
	}
	sum := sha256.Sum256(redeem)
	return hash160(append([]byte{0x00, 0x20}, sum[:]...)), nil
}

// pushInt appends a Bitcoin script push of n: OP_1..OP_16 for small values, else a minimal
// little-endian script number.
func pushInt(b []byte, n int) []byte {
	if n >= 1 && n <= 16 {
		return append(b, 0x50+byte(n))
	}
	var num []byte
	for v := n; v > 0; v >>= 8 {
		num = append(num, byte(v))
	}
	if num[len(num)-1]&0x80 != 0 {
		num = append(num, 0)
	}
	return append(append(b, byte(len(num))), num...)
}
