package tsv

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
)

// TimestampLayout is PostgreSQL's timestamptz text output in UTC, the files' column 2.
const TimestampLayout = "2006-01-02 15:04:05.000000+00"

// Writer writes records in the format Reader reads: COPY text, one record a line.
type Writer struct {
	bw   *bufio.Writer
	zw   *gzip.Writer // Create of a .gz file
	f    *os.File     // Create
	line []byte
}

// NewWriter writes records to w, buffered: Close flushes them (and leaves w open).
func NewWriter(w io.Writer) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, 1<<20)}
}

// Create creates (or truncates) the file at path and writes records to it, gzip-compressed
// when path ends in .gz. Close finishes and closes the file.
func Create(path string) (*Writer, error) { return create(path, os.O_TRUNC) }

// CreateNew is Create for a file that must not exist yet.
func CreateNew(path string) (*Writer, error) { return create(path, os.O_EXCL) }

func create(path string, flag int) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|flag, 0o644)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".gz") {
		w := NewWriter(f)
		w.f = f
		return w, nil
	}
	zw := gzip.NewWriter(f)
	w := NewWriter(zw)
	w.zw, w.f = zw, f
	return w, nil
}

// Write writes one record; a nil Payload is written as NULL.
func (w *Writer) Write(rec Record) error {
	line := strconv.AppendInt(w.line[:0], rec.ID, 10)
	line = append(line, '\t')
	line = rec.ReceivedAt.UTC().AppendFormat(line, TimestampLayout)
	line = append(line, '\t')
	line = AppendEscaped(line, []byte(rec.Path))
	line = append(line, '\t')
	if rec.Payload == nil {
		line = append(line, `\N`...)
	} else {
		line = AppendEscaped(line, rec.Payload)
	}
	line = append(line, '\n')
	w.line = line
	_, err := w.bw.Write(line)
	return err
}

// Text is where text already in the format goes, such as PostgreSQL's COPY TO output of the
// request log; it shares the buffering (and compression) of the records.
func (w *Writer) Text() io.Writer { return w.bw }

// Close flushes what is buffered and, for a Create writer, ends the compression and closes
// the file. The file is closed even when an earlier step fails.
func (w *Writer) Close() error {
	err := w.bw.Flush()
	if w.zw != nil {
		err = errors.Join(err, w.zw.Close())
	}
	if w.f != nil {
		err = errors.Join(err, w.f.Close())
	}
	return err
}

// AppendEscaped appends b with PostgreSQL's COPY text escaping: backslash and the control
// characters that would break the line or column structure become backslash sequences.
// Unescape reverses it.
func AppendEscaped(dst, b []byte) []byte {
	for _, c := range b {
		switch c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\v':
			dst = append(dst, '\\', 'v')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// CountLines reads the rest of the input without parsing it and returns how many lines it
// holds (a cheap record count, e.g. for a progress bar).
func (r *Reader) CountLines() (int64, error) {
	var n int64
	buf := make([]byte, 1<<20)
	for {
		k, err := r.r.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
