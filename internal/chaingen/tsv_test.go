package chaingen_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

func TestAppendCopyText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{`{"s":"x\ny"}`, `{"s":"x\\ny"}`}, // JSON's escaped newline: the backslash doubles
		{"tab\there", `tab\there`},
		{"line\nbreak\r", `line\nbreak\r`},
		{"\b\f\v", `\b\f\v`},
		{`back\slash`, `back\\slash`},
	} {
		got := string(chaingen.AppendCopyText(nil, []byte(tc.in)))
		if got != tc.want {
			t.Errorf("AppendCopyText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if back := string(tsv.Unescape([]byte(got))); back != tc.in {
			t.Errorf("tsv.Unescape(%q) = %q, want %q", got, back, tc.in)
		}
	}
}

// TestWriteTSV: the file reads back, through the replay reader, as the generated messages.
func TestWriteTSV(t *testing.T) {
	t.Parallel()
	_, want := generate(t, smallChain)
	g, err := chaingen.New(smallChain)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := chaingen.WriteTSV(&buf, g)
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
