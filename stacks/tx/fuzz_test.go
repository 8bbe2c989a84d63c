package tx

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stxgraph/stxgraph/stacks/c32"
)

// FuzzDecodeTransaction checks that no input panics the decoder, and that every transaction it
// accepts re-encodes to the same bytes, renders as JSON and can be verified without panicking.
func FuzzDecodeTransaction(f *testing.F) {
	for _, v := range loadVectors(f).Transactions {
		f.Add(unhex(f, v.RawTxHex))
	}
	// Real multisig and poison-microblock transactions widen the starting coverage.
	for _, name := range []string{"regtest-env-pox-4-out-of-order-multisig-tx.tsv.gz", "poisonmicroblock.tsv.gz"} {
		for _, ft := range readFixtureTxs(f, name) {
			f.Add(unhex(f, ft.Raw))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		tx, err := Decode(raw)
		if err != nil {
			return
		}
		if enc := tx.Encode(); !bytes.Equal(enc, raw) {
			t.Fatalf("re-encoded %x, decoded from %x", enc, raw)
		}
		if _, err := json.Marshal(tx.APIFields()); err != nil {
			t.Fatal(err)
		}
		_ = tx.Verify()
	})
}

func BenchmarkDecodeTransaction(b *testing.B) {
	vectors := loadVectors(b).Transactions
	raws := make([][]byte, len(vectors))
	size := 0
	for i, v := range vectors {
		raws[i] = unhex(b, v.RawTxHex)
		size += len(raws[i])
	}
	b.SetBytes(int64(size / len(raws)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := Decode(raws[i%len(raws)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}

func BenchmarkAPIFields(b *testing.B) {
	vectors := loadVectors(b).Transactions
	txs := make([]*Transaction, len(vectors))
	for i, v := range vectors {
		var err error
		if txs[i], err = Decode(unhex(b, v.RawTxHex)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := json.Marshal(txs[i%len(txs)].APIFields()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}

func BenchmarkSign(b *testing.B) {
	key, compressed, err := ParsePrivateKey("8335ef4d670a436ec839decf4a5a96f7c7a2fbb057b2c0a125ef8a01d46d91b901")
	if err != nil {
		b.Fatal(err)
	}
	recipient, err := c32.ParsePrincipal("ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0RQ")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		tx, err := NewTokenTransfer(TransferOptions{Recipient: recipient, Amount: 1, Nonce: uint64(i), Fee: 180})
		if err != nil {
			b.Fatal(err)
		}
		if err := tx.SignSingleSig(key, compressed); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}
