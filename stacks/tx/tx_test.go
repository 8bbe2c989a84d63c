package tx

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/clarity"
)

func vectorByID(t *testing.T, id string) txVector {
	t.Helper()
	for _, v := range loadVectors(t).Transactions {
		if v.ID == id {
			return v
		}
	}
	t.Fatalf("no vector %s", id)
	return txVector{}
}

// TestVectorSignatures verifies the signatures of the raw vectors, covering sponsored
// single-sig, sequential P2SH multisig and order-independent multisig.
func TestVectorSignatures(t *testing.T) {
	for _, id := range []string{
		"native-decode-tx-sponsored",
		"sjs-multisig-p2sh",
		"native-decode-tx-non-sequential-multi-sig",
		"native-decode-tx-non-sequential-multi-sig-2",
		"gen-sponsored-contract-call",
		"gen-contract-call-postconditions",
	} {
		tx, err := Decode(unhex(t, vectorByID(t, id).RawTxHex))
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Verify(); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// TestMultisigRules checks stacks-core's signature-count and key-compression rules.
func TestMultisigRules(t *testing.T) {
	tests := []struct {
		id     string
		mutate func(c *SpendingCondition)
		err    string
	}{
		{"sjs-multisig-p2sh", func(c *SpendingCondition) { c.SignaturesRequired++ }, "exactly 3 required"},
		{"sjs-multisig-p2sh", func(c *SpendingCondition) { c.HashMode = HashP2WSH; c.Fields[2].Type = FieldPublicKeyUncompressed }, "uncompressed keys are not allowed"},
		{"sjs-multisig-p2sh", func(c *SpendingCondition) { c.Fields[0], c.Fields[1] = c.Fields[1], c.Fields[0] }, "signer is"},
		{"native-decode-tx-non-sequential-multi-sig", func(c *SpendingCondition) { c.SignaturesRequired = 3 }, "at least 3 required"},
		{"native-decode-tx-non-sequential-multi-sig", func(c *SpendingCondition) { c.HashMode = HashP2SH }, "signer is"},
	}
	for _, tt := range tests {
		tx, err := Decode(unhex(t, vectorByID(t, tt.id).RawTxHex))
		if err != nil {
			t.Fatal(err)
		}
		tt.mutate(&tx.Origin)
		if err := tx.Verify(); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: Verify error %v, want %q", tt.id, err, tt.err)
		}
	}
}

// TestVerifyRejectsTampering changes one byte at a time in signed parts and expects Verify to
// notice (or the decoder to reject the byte).
func TestVerifyRejectsTampering(t *testing.T) {
	raw := unhex(t, vectorByID(t, "native-decode-tx-sponsored").RawTxHex)
	// Offsets in a sponsored single-sig tx: version(1) chain(4) auth(1), then two 103-byte conditions.
	const origin, sponsor = 6, 6 + 103
	for _, off := range []int{
		origin + 1 + 5,    // origin signer hash
		origin + 21 + 7,   // origin nonce
		sponsor + 1 + 10,  // sponsor signer hash
		sponsor + 29 + 7,  // sponsor fee
		sponsor + 38 + 40, // sponsor signature
		len(raw) - 1,      // last byte of the payload
	} {
		bad := append([]byte{}, raw...)
		bad[off] ^= 0x01
		tx, err := Decode(bad)
		if err != nil {
			continue // the flip made the bytes undecodable: also a rejection
		}
		if err := tx.Verify(); err == nil {
			t.Errorf("flipping byte %d went unnoticed", off)
		}
	}
}

func sponsorSigner(t *testing.T, hexKey string) (*Transaction, func(*Transaction) error) {
	t.Helper()
	key, compressed, err := ParsePrivateKey(hexKey)
	if err != nil {
		t.Fatal(err)
	}
	recipient, _ := c32.ParsePrincipal("ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0RQ.my-contract")
	tx, err := NewTokenTransfer(TransferOptions{Recipient: recipient, Amount: 5, Memo: "hi", Nonce: 3, Fee: 200})
	if err != nil {
		t.Fatal(err)
	}
	return tx, func(tx *Transaction) error { return tx.SignSponsorSingleSig(key, compressed) }
}

// TestSponsoredSigning signs a sponsored transfer as origin and sponsor and checks that Verify
// accepts it, that the sponsor's fee is the API fee_rate, and that the origin's signature does not
// depend on the sponsor (it signs over the sentinel).
func TestSponsoredSigning(t *testing.T) {
	tx, signSponsor := sponsorSigner(t, "0b7d063068607956c6393b63b589144a490e8f17333be4f5c474ce14f5ee3bcb01")
	originKey, _, _ := ParsePrivateKey("8335ef4d670a436ec839decf4a5a96f7c7a2fbb057b2c0a125ef8a01d46d91b901")
	tx.Auth = AuthSponsored
	tx.Origin.Fee = 0
	tx.Sponsor = &SpendingCondition{HashMode: HashP2PKH, Nonce: 9, Fee: 1234}
	if err := signSponsor(tx); err == nil {
		t.Fatal("sponsor signed before the origin")
	}
	if err := tx.SignSingleSig(originKey, true); err != nil {
		t.Fatal(err)
	}
	originSig := tx.Origin.Signature
	if err := signSponsor(tx); err != nil {
		t.Fatal(err)
	}
	if tx.Origin.Signature != originSig {
		t.Error("sponsor signing changed the origin signature")
	}
	if err := tx.Verify(); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(tx.Encode())
	if err != nil {
		t.Fatal(err)
	}
	f := back.APIFields()
	if f.FeeRate != "1234" || !f.Sponsored || f.SponsorNonce == nil || *f.SponsorNonce != 9 ||
		f.SenderAddress != "ST1YDEBBAZA69P905WVBRSMPQ6B5BPB30Q4RD43KE" || f.SponsorAddress != "ST374VXBCY8K2F2607Q3SBX954CXHB648MK0KSEH3" {
		t.Errorf("sponsored fields: %+v", f)
	}
	tx.Sponsor.Fee++
	if err := tx.Verify(); err == nil {
		t.Error("changed sponsor fee still verifies")
	}
}

func TestAPIFieldsKeyOrder(t *testing.T) {
	tx, err := Decode(unhex(t, vectorByID(t, "native-decode-tx-sponsored").RawTxHex))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tx.APIFields())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tx_id", "nonce", "fee_rate", "sender_address", "sponsor_nonce", "sponsored",
		"sponsor_address", "post_condition_mode", "post_conditions", "anchor_mode", "tx_type", "contract_call"}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.Token() // {
	var got []string
	for dec.More() {
		k, _ := dec.Token()
		got = append(got, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("keys %v, want %v", got, want)
	}
}

func TestParsePrivateKey(t *testing.T) {
	tests := []struct {
		in         string
		compressed bool
		err        string
	}{
		{"8335ef4d670a436ec839decf4a5a96f7c7a2fbb057b2c0a125ef8a01d46d91b901", true, ""},
		{"0x8335ef4d670a436ec839decf4a5a96f7c7a2fbb057b2c0a125ef8a01d46d91b9", false, ""},
		{"8335ef4d670a436ec839decf4a5a96f7c7a2fbb057b2c0a125ef8a01d46d91b902", false, "33 ending in 01"},
		{strings.Repeat("00", 32), false, "not in [1, n-1]"},
		{strings.Repeat("ff", 32), false, "not in [1, n-1]"},
		{"xyz", false, "invalid hex character"},
	}
	for _, tt := range tests {
		_, compressed, err := ParsePrivateKey(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParsePrivateKey(%s) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || compressed != tt.compressed {
			t.Errorf("ParsePrivateKey(%s) = compressed %v, %v", tt.in, compressed, err)
		}
	}
}

func TestNewTokenTransferDefaults(t *testing.T) {
	recipient, _ := c32.ParsePrincipal("SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7")
	tx, err := NewTokenTransfer(TransferOptions{Recipient: recipient, Amount: 1, Mainnet: true})
	if err != nil {
		t.Fatal(err)
	}
	if tx.Version != VersionMainnet || tx.ChainID != ChainIDMainnet || tx.AnchorMode != AnchorAny ||
		tx.PostConditionMode != PostConditionDeny || !tx.IsMainnet() {
		t.Errorf("mainnet defaults: %+v", tx)
	}
	if _, err := NewTokenTransfer(TransferOptions{Recipient: recipient, Memo: strings.Repeat("m", MemoLen+1)}); err == nil {
		t.Error("accepted a 35-byte memo")
	}
	key, _, _ := ParsePrivateKey(strings.Repeat("11", 32))
	tx.Origin.HashMode = HashP2WPKH
	if err := tx.SignSingleSig(key, false); err == nil {
		t.Error("signed P2WPKH with an uncompressed key")
	}
	if err := tx.SignSingleSig(key, true); err != nil {
		t.Fatal(err)
	}
	if err := tx.Verify(); err != nil {
		t.Errorf("P2WPKH transfer does not verify: %v", err)
	}
	if !strings.HasPrefix(tx.SenderAddress(), "SM") {
		t.Errorf("P2WPKH sender %s should use the mainnet multisig version", tx.SenderAddress())
	}
}

func TestDecodeErrors(t *testing.T) {
	good := unhex(t, vectorByID(t, "tt-faucet-1").RawTxHex)
	mutate := func(off int, b ...byte) []byte {
		out := append([]byte{}, good...)
		copy(out[off:], b)
		return out
	}
	tests := []struct {
		name   string
		raw    []byte
		msg    string
		offset int
	}{
		{"empty", nil, "end of input reading transaction version", 0},
		{"bad version", mutate(0, 0x01), "unknown transaction version 0x01", 0},
		{"bad auth", mutate(5, 0x06), "unknown authorization type 0x06", 5},
		{"bad hash mode", mutate(6, 0x04), "unknown hash mode 0x04", 6},
		{"bad key encoding", mutate(43, 0x02), "unknown key encoding 0x02", 43},
		{"bad anchor mode", mutate(109, 0x04), "unknown anchor mode 0x04", 109},
		{"bad post-condition mode", mutate(110, 0x00), "unknown post-condition mode 0x00", 110},
		{"huge post-condition count", mutate(111, 0xff, 0xff, 0xff, 0xff), "post-condition count 4294967295 exceeds", 111},
		{"bad payload", mutate(115, 0x09), "unknown payload type 0x09", 115},
		{"recipient not a principal", mutate(116, 0x01), "expected a principal, got Clarity type 0x01", 116},
		{"recipient version 32", mutate(117, 0x20), "address version 32 is above 31", 117},
		{"truncated memo", good[:170], "end of input reading memo: need 34 bytes, have 24", 146},
		{"trailing byte", append(append([]byte{}, good...), 0), "1 trailing bytes", 180},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.raw)
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			if !strings.Contains(de.Msg, tt.msg) || de.Offset != tt.offset {
				t.Errorf("got %q at %d, want %q at %d", de.Msg, de.Offset, tt.msg, tt.offset)
			}
		})
	}
}

func TestDecodePostConditionsBufferRejects(t *testing.T) {
	tests := []struct {
		hex, msg string
	}{
		{"0200000000ff", "1 trailing bytes after the post-conditions at byte offset 5"},
		{"0400000000", "unknown post-condition mode 0x04 at byte offset 0"},
		{"02000000010001100000000000000000", "unknown condition code 0x10 at byte offset 7"},
	}
	for _, tt := range tests {
		_, _, err := DecodePostConditionsBuffer(unhex(t, tt.hex))
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: error %v, want %q", tt.hex, err, tt.msg)
		}
	}
}

// TestEmbeddedClarityErrorOffset checks that a bad contract-call argument reports its offset in
// the transaction, not in the argument.
func TestEmbeddedClarityErrorOffset(t *testing.T) {
	raw := unhex(t, vectorByID(t, "gen-contract-call-postconditions").RawTxHex)
	tx, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	last := clarity.Encode(tx.Payload.(*ContractCall).Args[7])
	at := len(raw) - len(last)
	bad := append([]byte{}, raw...)
	bad[at] = 0x0f
	_, err = Decode(bad)
	var de *DecodeError
	if !errors.As(err, &de) || de.Offset != at || !strings.Contains(de.Msg, "argument 7: unknown Clarity type id 0x0f") {
		t.Errorf("got %v, want argument 7 error at %d", err, at)
	}
}

// TestPayloadRoundTrip builds the payloads no vector covers (poison microblock, the newer
// post-condition kinds and codes, originator mode, Clarity 5, SIP-034 causes) and checks that
// they encode, decode back to the same bytes and render.
func TestPayloadRoundTrip(t *testing.T) {
	addr, _ := c32.ParseAddress("ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0RQ")
	contract := c32.Principal{Address: addr, ContractName: "pool"}
	recipient := contract
	proof := [VRFProofLen]byte{1, 2, 3}
	base := func(p Payload, pcs ...PostCondition) *Transaction {
		return &Transaction{
			Version: VersionTestnet, ChainID: ChainIDTestnet, Auth: AuthStandard,
			Origin:     SpendingCondition{HashMode: HashP2WSHOrderIndependent, Fields: []AuthField{{Type: FieldPublicKeyCompressed}}, SignaturesRequired: 1},
			AnchorMode: AnchorOnChainOnly, PostConditionMode: PostConditionOriginator,
			PostConditions: pcs, Payload: p,
		}
	}
	tests := []struct {
		name   string
		tx     *Transaction
		txType string
		check  func(Fields) bool
	}{
		{"poison microblock", base(&PoisonMicroblock{Header1: [132]byte{7}, Header2: [132]byte{8}}), "poison_microblock",
			func(f Fields) bool { return strings.HasPrefix(f.PoisonMicroblock.MicroblockHeader1, "0x07") }},
		{"clarity 5 contract", base(&SmartContract{Name: "c", Code: []byte("(ok \xff)"), ClarityVersion: 5}), "smart_contract",
			func(f Fields) bool {
				return *f.SmartContract.ClarityVersion == 5 && f.SmartContract.SourceCode == "(ok \uFFFD)"
			}},
		{"nakamoto coinbase with recipient", base(&Coinbase{Recipient: &recipient, VRFProof: &proof}), "coinbase",
			func(f Fields) bool {
				return *f.CoinbasePayload.AltRecipient == contract.String() && f.CoinbasePayload.VRFProof != nil
			}},
		{"tenure extend write length", base(&TenureChange{Cause: CauseExtendedWriteLength, PreviousTenureBlocks: 3}), "tenure_change",
			func(f Fields) bool { return f.TenureChangePayload.Cause == "extended_write_length" }},
		{"staking, pox and maybe-sent post-conditions", base(&TokenTransfer{Recipient: contract},
			PostCondition{Kind: AssetStaking, Principal: PostConditionPrincipal{Kind: PrincipalOrigin}, Code: CodeSentLessThan, Amount: 9},
			PostCondition{Kind: AssetPoX, Principal: PostConditionPrincipal{Kind: PrincipalContract, Principal: contract}, Code: CodeMaybePerformed},
			PostCondition{Kind: AssetNonFungible, Principal: PostConditionPrincipal{Kind: PrincipalStandard, Principal: c32.Principal{Address: addr}},
				Asset: AssetInfo{Contract: contract, AssetName: "nft"}, AssetValue: clarity.NewUInt64(1), Code: CodeMaybeSent},
		), "token_transfer", func(f Fields) bool {
			pcs := f.PostConditions
			return f.PostConditionMode == "originator" && f.AnchorMode == "on_chain_only" &&
				pcs[0].Type == "staking" && pcs[0].Amount == "9" && pcs[1].Type == "pox" && pcs[1].ConditionCode == "maybe_performed" &&
				pcs[1].Amount == "" && pcs[2].ConditionCode == "maybe_sent" && pcs[2].AssetValue.Repr == "u1"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.tx.Encode()
			back, err := Decode(raw)
			if err != nil {
				t.Fatalf("%v\n%s", err, hex.EncodeToString(raw))
			}
			if hex.EncodeToString(back.Encode()) != hex.EncodeToString(raw) {
				t.Error("round trip changed the bytes")
			}
			f := back.APIFields()
			if f.TxType != tt.txType || !tt.check(f) {
				b, _ := json.Marshal(f)
				t.Errorf("fields: %s", b)
			}
		})
	}
}

func TestApplyABI(t *testing.T) {
	tx, err := Decode(unhex(t, vectorByID(t, "gen-sponsored-contract-call").RawTxHex))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := ParseContractInterface([]byte(`{"functions":[
		{"name":"other","access":"private","args":[]},
		{"name":"increment","access":"read_only","args":[
			{"name":"by","type":"int128"},
			{"name":"who","type":"principal"}],
		 "outputs":{"type":"bool"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	cc := tx.PayloadJSON().ContractCall
	fn, ok := ci.Function(cc.FunctionName)
	if !ok {
		t.Fatal("function not found")
	}
	if err := cc.ApplyABI(fn); err != nil {
		t.Fatal(err)
	}
	if cc.FunctionSignature != "(define-read-only (increment (by int) (who principal)))" {
		t.Errorf("signature %s", cc.FunctionSignature)
	}
	// The third argument is beyond the ABI: it keeps the decoded type and an empty name.
	got := []string{cc.FunctionArgs[0].Name, cc.FunctionArgs[0].Type, cc.FunctionArgs[1].Name, cc.FunctionArgs[2].Name, cc.FunctionArgs[2].Type}
	want := []string{"by", "int", "who", "", "(optional (string-utf8 28))"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("args %v, want %v", got, want)
	}
	other, _ := ci.Function("other")
	if err := cc.ApplyABI(other); err == nil {
		t.Error("applied the ABI of another function")
	}
}

func TestABITypeString(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"uint128"`, "uint"},
		{`"bool"`, "bool"},
		{`"trait_reference"`, "trait_reference"},
		{`{"buffer":{"length":20}}`, "(buff 20)"},
		{`{"string-ascii":{"length":5}}`, "(string-ascii 5)"},
		{`{"string-utf8":{"length":7}}`, "(string-utf8 7)"},
		{`{"optional":"principal"}`, "(optional principal)"},
		{`{"response":{"ok":"bool","error":"uint128"}}`, "(response bool uint)"},
		{`{"list":{"type":"int128","length":10}}`, "(list 10 int)"},
		{`{"tuple":[{"name":"version","type":{"buffer":{"length":1}}},{"name":"hashbytes","type":{"buffer":{"length":32}}}]}`,
			"(tuple (version (buff 1)) (hashbytes (buff 32)))"},
	}
	for _, tt := range tests {
		got, err := ABITypeString(json.RawMessage(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("ABITypeString(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := ABITypeString(json.RawMessage(`{"mystery":1}`)); err == nil {
		t.Error("accepted an unknown ABI type")
	}
}
