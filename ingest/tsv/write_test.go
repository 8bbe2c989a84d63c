package tsv

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestAppendEscaped(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{`{"s":"x\ny"}`, `{"s":"x\\ny"}`}, // JSON's escaped newline: the backslash doubles
		{"tab\there", `tab\there`},
		{"line\nbreak\r", `line\nbreak\r`},
		{"\b\f\v", `\b\f\v`},
		{`back\slash`, `back\\slash`},
	} {
		got := string(AppendEscaped(nil, []byte(tc.in)))
		if got != tc.want {
			t.Errorf("AppendEscaped(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if back := string(Unescape([]byte(got))); back != tc.in {
			t.Errorf("Unescape(%q) = %q, want %q", got, back, tc.in)
		}
	}
}

// roundTripRecords hold every character AppendEscaped escapes, in paths and payloads, and
// backslash sequences Unescape would otherwise read (octal, hex, \N). (A payload that is a JSON
// string with raw control characters is left out: its escaped form is itself valid JSON, which
// the reader takes for a raw-JSON file.)
var roundTripRecords = []Record{
	{ID: 1, ReceivedAt: time.Date(2024, 3, 13, 15, 34, 12, 123456000, time.UTC), Path: "/new_block",
		Payload: []byte(`{"memo":"say \"hi\"\tnow\\","n":1}`)},
	{ID: 2, ReceivedAt: time.Date(2022, 10, 5, 16, 20, 35, 0, time.UTC), Path: "/new_burn_block"}, // NULL payload
	{ID: 3, ReceivedAt: time.Date(2022, 10, 5, 16, 20, 35, 1000, time.UTC), Path: "/p\tq\\r", Payload: []byte{}},
	{ID: 40, ReceivedAt: time.Date(2023, 1, 1, 0, 0, 0, 999999000, time.UTC), Path: "/x",
		Payload: []byte("all: \\ \n \r \t \b \f \v and \\101 \\x41 \\N end\\")},
	{ID: 1 << 40, ReceivedAt: time.Date(2023, 1, 1, 0, 0, 0, 0, time.FixedZone("", 3600)).UTC(), Path: "/new_mempool_tx",
		Payload: []byte("[\"0x00\"]\r\n\r\n")},
}

func TestWriterRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"log.tsv", "log.tsv.gz"} {
		path := filepath.Join(dir, name)
		w, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range roundTripRecords {
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile(path)
		if gz := len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b; gz != (filepath.Ext(name) == ".gz") {
			t.Errorf("%s: gzip-compressed %v", name, gz)
		}
		r, closer, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var got []Record
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, *rec)
		}
		closer.Close()
		if !reflect.DeepEqual(got, roundTripRecords) {
			t.Errorf("%s read back\n%+v\nwant\n%+v", name, got, roundTripRecords)
		}
		r, closer, err = Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := r.CountLines(); n != int64(len(roundTripRecords)) || err != nil {
			t.Errorf("%s: CountLines = %d, %v; want %d", name, n, err, len(roundTripRecords))
		}
		closer.Close()
	}
	if _, err := CreateNew(filepath.Join(dir, "log.tsv")); !errors.Is(err, os.ErrExist) {
		t.Errorf("CreateNew over an existing file: %v", err)
	}
}

// Text passes text already in the format through the writer's compression.
func TestWriterText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "copy.tsv.gz")
	w, err := CreateNew(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w.Text(), "7\t2022-10-05 16:20:35+00\t/new_block\t{}\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, closer, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	rec, err := r.Next()
	if err != nil || rec.ID != 7 || !bytes.Equal(rec.Payload, []byte("{}")) {
		t.Errorf("read %+v, %v", rec, err)
	}
}
