package chaingen_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// TestWriteTSV: the file reads back, through the replay reader, as the generated messages.
func TestWriteTSV(t *testing.T) {
	t.Parallel()
	_, want := generate(t, smallChain)
	g, err := chaingen.New(smallChain)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := tsv.NewWriter(&buf)
	n, err := chaingen.WriteTSV(w, g)
	if err == nil {
		err = w.Close()
	}
	if err != nil || n != int64(len(want)) {
		t.Fatalf("WriteTSV wrote %d records (%v), want %d", n, err, len(want))
	}
	r, err := tsv.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			if i != len(want) {
				t.Fatalf("read %d records, want %d", i, len(want))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		m := want[i]
		if rec.ID != int64(i+1) || rec.Path != m.Path || !bytes.Equal(rec.Payload, m.Payload) || !rec.ReceivedAt.Equal(m.ReceivedAt) {
			t.Fatalf("record %d: id %d path %s at %v differs from message %s at %v", i, rec.ID, rec.Path, rec.ReceivedAt, m.Path, m.ReceivedAt)
		}
	}
}
