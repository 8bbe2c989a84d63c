package clarity

import (
	"bytes"
	"testing"
)

// FuzzDecodeClarity checks that no input panics or hangs the decoder, and that whatever decodes
// re-encodes to exactly the bytes consumed and can be printed.
func FuzzDecodeClarity(f *testing.F) {
	for _, v := range loadVectors(f).ClarityValues {
		f.Add(mustHex(f, v.Hex))
	}
	f.Add([]byte{0x0f})
	f.Add(bytes.Repeat([]byte{0x0a}, 100))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n, err := Decode(b)
		if err != nil {
			return
		}
		if n < 1 || n > len(b) {
			t.Fatalf("consumed %d of %d bytes", n, len(b))
		}
		if enc := Encode(v); !bytes.Equal(enc, b[:n]) {
			t.Fatalf("re-encoded %x, decoded from %x", enc, b[:n])
		}
		_ = v.Repr()
		_ = TypeString(v)
	})
}

func BenchmarkDecodeClarity(b *testing.B) {
	vectors := loadVectors(b).ClarityValues
	inputs := make([][]byte, len(vectors))
	for i, v := range vectors {
		inputs[i] = mustHex(b, v.Hex)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, _, err := Decode(inputs[i%len(inputs)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "values/s")
}

func BenchmarkRepr(b *testing.B) {
	vectors := loadVectors(b).ClarityValues
	values := make([]Value, len(vectors))
	for i, v := range vectors {
		values[i], _, _ = Decode(mustHex(b, v.Hex))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		_ = values[i%len(values)].Repr()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "values/s")
}
