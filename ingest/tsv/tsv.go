// Package tsv reads the reference API's event-replay files: the PostgreSQL COPY text output of
// event_observer_requests (id, receive_timestamp, event_path, payload), tab-separated, one
// message per line, plain or gzip-compressed. Some files hold raw JSON payloads that were
// never COPY-escaped; the reader accepts both.
package tsv

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Record is one logged message; Payload is nil for a NULL payload.
type Record struct {
	ID         int64
	ReceivedAt time.Time
	Path       string
	Payload    []byte
}

// Reader reads records one at a time.
type Reader struct {
	r    *bufio.Reader
	line int
}

// NewReader reads records from r; gzip input is detected and decompressed.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		br = bufio.NewReaderSize(zr, 1<<20)
	}
	return &Reader{r: br}, nil
}

// Open opens a file for reading; Close the returned closer when done.
func Open(path string) (*Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, f, nil
}

// Next returns the next record, or io.EOF after the last one.
func (r *Reader) Next() (*Record, error) {
	for {
		line, err := r.r.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return nil, err
		}
		r.line++
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			continue
		}
		rec, perr := parseLine(line)
		if perr != nil {
			return nil, fmt.Errorf("line %d: %w", r.line, perr)
		}
		return rec, nil
	}
}

func parseLine(line []byte) (*Record, error) {
	cols := bytes.SplitN(line, []byte{'\t'}, 4)
	if len(cols) != 4 {
		return nil, fmt.Errorf("want 4 tab-separated columns, got %d", len(cols))
	}
	id, err := strconv.ParseInt(string(cols[0]), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("id %q: %w", cols[0], err)
	}
	ts, err := parseTimestamp(string(cols[1]))
	if err != nil {
		return nil, err
	}
	if string(cols[3]) == `\N` { // NULL: nothing to replay
		return &Record{ID: id, ReceivedAt: ts, Path: string(Unescape(cols[2]))}, nil
	}
	payload := Unescape(cols[3])
	// Without a backslash both readings are the same bytes; with one, the raw-JSON reading is
	// taken only when the COPY one is not JSON.
	if bytes.IndexByte(cols[3], '\\') >= 0 && !json.Valid(payload) && json.Valid(cols[3]) {
		payload = cols[3] // a raw-JSON file
	}
	return &Record{ID: id, ReceivedAt: ts, Path: string(Unescape(cols[2])), Payload: payload}, nil
}

// parseTimestamp reads PostgreSQL's timestamptz text output, e.g. "2022-10-05 16:20:34.244945+00".
func parseTimestamp(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999-07", "2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("receive_timestamp %q is not a timestamp", s)
}

// Unescape reverses COPY text escaping: \b \f \n \r \t \v, \\, octal \NNN and hex \xNN;
// a backslash before any other character stands for that character.
func Unescape(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 == len(b) {
			out = append(out, c)
			continue
		}
		i++
		switch c = b[i]; c {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'v':
			out = append(out, '\v')
		case 'x':
			n, used := digits(b[i+1:], 16, 2)
			if used == 0 {
				out = append(out, 'x')
				continue
			}
			out = append(out, byte(n))
			i += used
		default:
			if c >= '0' && c <= '7' {
				n, used := digits(b[i:], 8, 3)
				out = append(out, byte(n))
				i += used - 1
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

func digits(b []byte, base, max int) (int, int) {
	n, used := 0, 0
	for used < max && used < len(b) {
		d := strings.IndexByte("0123456789abcdef"[:base], lower(b[used]))
		if d < 0 {
			break
		}
		n = n*base + d
		used++
	}
	return n, used
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
