package tsv

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestUnescape(t *testing.T) {
	tests := []struct{ in, want string }{
		{`plain {"a": 1}`, `plain {"a": 1}`},
		{`a\\b`, `a\b`},
		{`\t\n\r`, "\t\n\r"},
		{`\b\f\v`, "\b\f\v"},
		{`\101\60`, "A0"},      // octal, up to three digits
		{`\1011`, "A1"},        // a fourth digit is a character of its own
		{`\x41\x4g`, "A\x04g"}, // hex, one or two digits
		{`\xg`, "xg"},          // \x without digits is an x
		{`\q\"`, `q"`},         // any other character stands for itself
		{`end\`, `end\`},       // a trailing backslash is kept
		{`{"s": "a\\"b"}`, `{"s": "a\"b"}`},
	}
	for _, tt := range tests {
		if got := string(Unescape([]byte(tt.in))); got != tt.want {
			t.Errorf("Unescape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// file is a COPY-escaped log: a JSON string holding a quote and a tab, a NULL payload, an
// empty line and a CRLF line end.
const file = "1\t2022-10-05 16:20:34.244945+00\t/new_block\t{\"memo\": \"say \\\\\"hi\\\\\"\\\\tnow\"}\n" +
	"2\t2022-10-05 16:20:35+00\t/new_burn_block\t\\N\n" +
	"\n" +
	"3\t2024-03-13T15:34:12.5Z\t/new_mempool_tx\t[\"0x00\"]\r\n"

func TestReader(t *testing.T) {
	want := []Record{
		{ID: 1, ReceivedAt: time.Date(2022, 10, 5, 16, 20, 34, 244945000, time.UTC), Path: "/new_block", Payload: []byte(`{"memo": "say \"hi\"\tnow"}`)},
		{ID: 2, ReceivedAt: time.Date(2022, 10, 5, 16, 20, 35, 0, time.UTC), Path: "/new_burn_block"},
		{ID: 3, ReceivedAt: time.Date(2024, 3, 13, 15, 34, 12, 500000000, time.UTC), Path: "/new_mempool_tx", Payload: []byte(`["0x00"]`)},
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(file))
	zw.Close()
	for name, input := range map[string][]byte{"plain": []byte(file), "gzip": gz.Bytes()} {
		t.Run(name, func(t *testing.T) {
			got := readAll(t, input)
			if len(got) != len(want) {
				t.Fatalf("read %d records, want %d", len(got), len(want))
			}
			for i, w := range want {
				g := got[i]
				if g.ID != w.ID || !g.ReceivedAt.Equal(w.ReceivedAt) || g.Path != w.Path || string(g.Payload) != string(w.Payload) || (g.Payload == nil) != (w.Payload == nil) {
					t.Errorf("record %d = {%d %s %s %q}, want {%d %s %s %q}", i, g.ID, g.ReceivedAt, g.Path, g.Payload, w.ID, w.ReceivedAt, w.Path, w.Payload)
				}
			}
		})
	}
}

// TestReaderRawJSON reads a file whose payloads were written without COPY escaping (as some
// of the reference's fixtures are): JSON escapes stay as they are.
func TestReaderRawJSON(t *testing.T) {
	line := "7\t2022-10-05 16:20:34+00\t/new_block\t{\"vm_error\": \"bad \\\"arg\\\" \\\\ here\"}\n"
	got := readAll(t, []byte(line))
	if want := `{"vm_error": "bad \"arg\" \\ here"}`; len(got) != 1 || string(got[0].Payload) != want {
		t.Fatalf("payload = %q, want %q", got[0].Payload, want)
	}
}

func TestReaderErrors(t *testing.T) {
	good := "1\t2022-10-05 16:20:34+00\t/new_block\t{}\n"
	tests := []struct{ name, line, want string }{
		{"columns", "2\t2022-10-05 16:20:34+00\t/new_block\n", "line 2: want 4 tab-separated columns, got 3"},
		{"id", "x\t2022-10-05 16:20:34+00\t/new_block\t{}\n", `line 2: id "x"`},
		{"timestamp", "2\tyesterday\t/new_block\t{}\n", `line 2: receive_timestamp "yesterday" is not a timestamp`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(good + tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Next(); err != nil {
				t.Fatalf("first line: %v", err)
			}
			if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestNewReaderBadGzip(t *testing.T) {
	if _, err := NewReader(bytes.NewReader([]byte{0x1f, 0x8b, 0x00})); err == nil {
		t.Error("a truncated gzip header was accepted")
	}
}

func readAll(t *testing.T, input []byte) []*Record {
	t.Helper()
	r, err := NewReader(bytes.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	var out []*Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
}
