package chaingen

import (
	"bytes"

	"github.com/stxgraph/stxgraph/ingest/tsv"
)

// WriteTSV writes every remaining message of g to w as records of the reference API's
// event-replay file, ids from 1, and returns the number written. Close w afterwards.
func WriteTSV(w *tsv.Writer, g *Generator) (int64, error) {
	var n int64
	err := g.Each(func(m Message) error {
		n++
		return w.Write(tsv.Record{ID: n, ReceivedAt: m.ReceivedAt, Path: m.Path, Payload: m.Payload})
	})
	return n, err
}

// TSV is every remaining message of g as an event-replay file in memory.
func TSV(g *Generator) ([]byte, error) {
	var buf bytes.Buffer
	w := tsv.NewWriter(&buf)
	if _, err := WriteTSV(w, g); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
