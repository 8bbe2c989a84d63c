package chaingen

import "github.com/stxgraph/stxgraph/ingest/tsv"

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
