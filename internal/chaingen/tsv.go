package chaingen

import (
	"bufio"
	"io"
	"strconv"
)

// TimestampLayout is PostgreSQL's timestamptz text output in UTC, the reference's TSV column 2.
const TimestampLayout = "2006-01-02 15:04:05.000000+00"

// WriteTSV writes every remaining message of g as the reference API's event-replay file: the
// COPY text output of event_observer_requests (id, receive_timestamp, event_path, payload),
// ids from 1. It returns the number of records written.
func WriteTSV(w io.Writer, g *Generator) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	err := g.Each(func(m Message) error {
		n++
		line := strconv.AppendInt(nil, n, 10)
		line = append(line, '\t')
		line = m.ReceivedAt.UTC().AppendFormat(line, TimestampLayout)
		line = append(line, '\t')
		line = AppendCopyText(line, []byte(m.Path))
		line = append(line, '\t')
		line = AppendCopyText(line, m.Payload)
		_, err := bw.Write(append(line, '\n'))
		return err
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// AppendCopyText appends b with PostgreSQL's COPY text escaping: backslash and the control
// characters that would break the line or column structure become backslash sequences.
func AppendCopyText(dst, b []byte) []byte {
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
