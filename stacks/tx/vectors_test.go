package tx

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/stxgraph/stxgraph/internal/fixtures"
	"github.com/stxgraph/stxgraph/stacks/c32"
)

type signedVector struct {
	ID     string `json:"id"`
	Inputs struct {
		PrivateKey        string `json:"private_key"`
		Recipient         string `json:"recipient"`
		Amount            uint64 `json:"amount"`
		Nonce             uint64 `json:"nonce"`
		Fee               uint64 `json:"fee"`
		Memo              string `json:"memo"`
		Network           string `json:"network"`
		AnchorMode        byte   `json:"anchor_mode"`
		ChainID           string `json:"chain_id"`
		PostConditionMode byte   `json:"post_condition_mode"`
	} `json:"inputs"`
	PublicKey       string `json:"public_key"`
	SignerHash160   string `json:"signer_hash160"`
	SenderAddress   string `json:"sender_address"`
	InitialPreimage string `json:"initial_sighash_preimage_hex"`
	InitialSighash  string `json:"initial_sighash"`
	PresignSighash  string `json:"presign_sighash"`
	SignatureVRS    string `json:"signature_vrs"`
	PostsignSighash string `json:"postsign_sighash"`
	TxHex           string `json:"tx_hex"`
	TxID            string `json:"txid"`
}

type wireCondition struct {
	HashMode           byte   `json:"hash_mode"`
	SignerHash160      string `json:"signer_hash160"`
	Nonce              string `json:"nonce"`
	TxFee              string `json:"tx_fee"`
	KeyEncoding        *byte  `json:"key_encoding"`
	Signature          string `json:"signature"`
	SignaturesRequired uint16 `json:"signatures_required"`
	Fields             []struct {
		TypeID    byte   `json:"type_id"`
		PublicKey string `json:"public_key"`
		Signature string `json:"signature"`
	} `json:"fields"`
}

type txVector struct {
	ID        string          `json:"id"`
	RawTxHex  string          `json:"raw_tx_hex"`
	TxID      string          `json:"tx_id"`
	APIFields json.RawMessage `json:"api_fields"`
	Wire      struct {
		Version              byte           `json:"version"`
		ChainID              uint32         `json:"chain_id"`
		AuthType             byte           `json:"auth_type"`
		Origin               wireCondition  `json:"origin"`
		Sponsor              *wireCondition `json:"sponsor"`
		AnchorMode           byte           `json:"anchor_mode"`
		PostConditionMode    byte           `json:"post_condition_mode"`
		PostConditionsBuffer string         `json:"post_conditions_buffer"`
		PayloadTypeID        byte           `json:"payload_type_id"`
	} `json:"wire"`
}

type vectorFile struct {
	Signed       []signedVector `json:"signed_token_transfers"`
	Transactions []txVector     `json:"transactions"`
}

func loadVectors(tb testing.TB) vectorFile {
	tb.Helper()
	raw, err := os.ReadFile(fixtures.Reference(tb, "stacks-vectors.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var vf vectorFile
	if err := json.Unmarshal(raw, &vf); err != nil {
		tb.Fatal(err)
	}
	if len(vf.Signed) == 0 || len(vf.Transactions) == 0 {
		tb.Fatal("stacks-vectors.json has no transaction vectors")
	}
	return vf
}

func unhex(tb testing.TB, s string) []byte {
	tb.Helper()
	if len(s) >= 2 && s[:2] == "0x" {
		s = s[2:]
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// buildVector builds and signs the transfer a signing vector describes.
func buildVector(tb testing.TB, v signedVector) *Transaction {
	tb.Helper()
	recipient, err := c32.ParsePrincipal(v.Inputs.Recipient)
	if err != nil {
		tb.Fatal(err)
	}
	chainID, err := strconv.ParseUint(v.Inputs.ChainID, 0, 32)
	if err != nil {
		tb.Fatal(err)
	}
	tx, err := NewTokenTransfer(TransferOptions{
		Recipient: recipient,
		Amount:    v.Inputs.Amount,
		Memo:      v.Inputs.Memo,
		Nonce:     v.Inputs.Nonce,
		Fee:       v.Inputs.Fee,
		Mainnet:   v.Inputs.Network == "mainnet",
		ChainID:   uint32(chainID),
	})
	if err != nil {
		tb.Fatal(err)
	}
	key, compressed, err := ParsePrivateKey(v.Inputs.PrivateKey)
	if err != nil {
		tb.Fatal(err)
	}
	if err := tx.SignSingleSig(key, compressed); err != nil {
		tb.Fatal(err)
	}
	return tx
}

// TestSignedTransferVectors reproduces every signing vector byte for byte, including the
// intermediate sighashes, with the defaults NewTokenTransfer shares with stacks.js.
func TestSignedTransferVectors(t *testing.T) {
	for _, v := range loadVectors(t).Signed {
		t.Run(v.ID, func(t *testing.T) {
			tx := buildVector(t, v)
			if got := hex.EncodeToString(tx.Encode()); got != v.TxHex {
				t.Fatalf("tx hex\n got %s\nwant %s", got, v.TxHex)
			}
			id := tx.TxID()
			if got := hex.EncodeToString(id[:]); got != v.TxID {
				t.Errorf("txid %s, want %s", got, v.TxID)
			}
			if got := tx.SenderAddress(); got != v.SenderAddress {
				t.Errorf("sender %s, want %s", got, v.SenderAddress)
			}
			if got := hex.EncodeToString(tx.Origin.Signer[:]); got != v.SignerHash160 {
				t.Errorf("signer %s, want %s", got, v.SignerHash160)
			}
			if byte(tx.AnchorMode) != v.Inputs.AnchorMode || byte(tx.PostConditionMode) != v.Inputs.PostConditionMode {
				t.Errorf("modes %d/%d, want %d/%d", tx.AnchorMode, tx.PostConditionMode, v.Inputs.AnchorMode, v.Inputs.PostConditionMode)
			}
			initial := tx.InitialSighash()
			presign := presignSighash(initial, AuthStandard, tx.Origin.Fee, tx.Origin.Nonce)
			postsign := postsignSighash(presign, tx.Origin.KeyEncoding, tx.Origin.Signature)
			cleared := *tx
			cleared.Origin = tx.Origin.cleared()
			for _, c := range []struct{ name, got, want string }{
				{"initial preimage", hex.EncodeToString(cleared.Encode()), v.InitialPreimage},
				{"initial sighash", hex.EncodeToString(initial[:]), v.InitialSighash},
				{"presign sighash", hex.EncodeToString(presign[:]), v.PresignSighash},
				{"signature", hex.EncodeToString(tx.Origin.Signature[:]), v.SignatureVRS},
				{"postsign sighash", hex.EncodeToString(postsign[:]), v.PostsignSighash},
			} {
				if c.got != c.want {
					t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
				}
			}
			if err := tx.Verify(); err != nil {
				t.Errorf("Verify: %v", err)
			}
		})
	}
}

// TestTransactionVectors decodes every raw transaction vector and compares the API fields, the
// wire fields and the re-encoding.
func TestTransactionVectors(t *testing.T) {
	for _, v := range loadVectors(t).Transactions {
		t.Run(v.ID, func(t *testing.T) {
			raw := unhex(t, v.RawTxHex)
			tx, err := Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(tx.Encode(), raw) {
				t.Errorf("re-encoding differs:\n got %x\nwant %x", tx.Encode(), raw)
			}
			if tx.TxIDHex() != v.TxID {
				t.Errorf("tx id %s, want %s", tx.TxIDHex(), v.TxID)
			}
			assertJSONEqual(t, tx.APIFields(), v.APIFields)
			checkWire(t, tx, v)
		})
	}
}

func assertJSONEqual(t *testing.T, got any, want json.RawMessage) {
	t.Helper()
	gotJSON, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(gotJSON, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("API fields differ:\n got %s\nwant %s", gotJSON, want)
	}
}

func checkWire(t *testing.T, tx *Transaction, v txVector) {
	t.Helper()
	w := v.Wire
	if tx.Version != w.Version || tx.ChainID != w.ChainID || byte(tx.Auth) != w.AuthType ||
		byte(tx.AnchorMode) != w.AnchorMode || byte(tx.PostConditionMode) != w.PostConditionMode ||
		byte(tx.Payload.Type()) != w.PayloadTypeID {
		t.Errorf("wire header mismatch: version %d chain %d auth %d anchor %d pcmode %d payload %d",
			tx.Version, tx.ChainID, tx.Auth, tx.AnchorMode, tx.PostConditionMode, tx.Payload.Type())
	}
	if got := "0x" + hex.EncodeToString(tx.PostConditionsBuffer()); got != w.PostConditionsBuffer {
		t.Errorf("post-conditions buffer %s, want %s", got, w.PostConditionsBuffer)
	}
	mode, pcs, err := DecodePostConditionsBuffer(unhex(t, w.PostConditionsBuffer))
	if err != nil || mode != tx.PostConditionMode || !reflect.DeepEqual(PostConditionsJSON(pcs), PostConditionsJSON(tx.PostConditions)) {
		t.Errorf("DecodePostConditionsBuffer = %v, %v, %v", mode, pcs, err)
	}
	checkCondition(t, "origin", &tx.Origin, &w.Origin)
	if (tx.Sponsor == nil) != (w.Sponsor == nil) {
		t.Fatalf("sponsor presence %v, want %v", tx.Sponsor != nil, w.Sponsor != nil)
	}
	if tx.Sponsor != nil {
		checkCondition(t, "sponsor", tx.Sponsor, w.Sponsor)
	}
}

func checkCondition(t *testing.T, who string, c *SpendingCondition, w *wireCondition) {
	t.Helper()
	if byte(c.HashMode) != w.HashMode || "0x"+hex.EncodeToString(c.Signer[:]) != w.SignerHash160 ||
		strconv.FormatUint(c.Nonce, 10) != w.Nonce || strconv.FormatUint(c.Fee, 10) != w.TxFee {
		t.Errorf("%s condition mismatch: %+v vs %+v", who, c, w)
	}
	if c.HashMode.IsSingleSig() {
		if w.KeyEncoding == nil || byte(c.KeyEncoding) != *w.KeyEncoding || "0x"+hex.EncodeToString(c.Signature[:]) != w.Signature {
			t.Errorf("%s single-sig mismatch", who)
		}
		return
	}
	if c.SignaturesRequired != w.SignaturesRequired || len(c.Fields) != len(w.Fields) {
		t.Fatalf("%s multisig: %d of %d fields, want %d of %d", who, c.SignaturesRequired, len(c.Fields), w.SignaturesRequired, len(w.Fields))
	}
	for i, f := range c.Fields {
		wf := w.Fields[i]
		got := "0x" + hex.EncodeToString(f.PublicKey[:])
		want := wf.PublicKey
		if f.Type.IsSignature() {
			got, want = "0x"+hex.EncodeToString(f.Signature[:]), wf.Signature
		}
		if byte(f.Type) != wf.TypeID || got != want {
			t.Errorf("%s field %d: type %d %s, want %d %s", who, i, f.Type, got, wf.TypeID, want)
		}
	}
}
