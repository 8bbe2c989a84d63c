package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/ingest/tsv"
)

// Progress reports a replay's advance; Done counts records read so far.
type Progress struct {
	Done, Applied, Skipped int64
	Blocks                 int64
	Elapsed                time.Duration
}

// ReplayOptions tune a replay.
type ReplayOptions struct {
	// OnProgress, when set, is called after every record.
	OnProgress func(Progress)
}

// Replay applies every record of a TSV event log through the same path as the live observer,
// in file order (the reference's files are in ascending id order). Each record is applied in
// its own transaction together with its request-log row, which keeps the record's id: a record
// whose id is already logged was applied before and is skipped. Replay is therefore
// restartable at any point, and duplicate ids in a file are applied once.
func (in *Ingester) Replay(ctx context.Context, r *tsv.Reader, opts ReplayOptions) (Progress, error) {
	var p Progress
	start := time.Now()
	last, err := in.store.LastRequestID(ctx)
	if err != nil {
		return p, err
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return p, nil
		}
		if err != nil {
			return p, err
		}
		p.Done++
		switch {
		case rec.ID <= last || rec.Payload == nil:
			p.Skipped++
		default:
			applied, err := in.Apply(ctx, Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt, ID: &rec.ID, Relaxed: true})
			if err != nil {
				return p, fmt.Errorf("record id %d (%s): %w", rec.ID, rec.Path, err)
			}
			if !applied {
				p.Skipped++
				break
			}
			p.Applied++
			last = rec.ID
			if rec.Path == PathNewBlock {
				p.Blocks++
			}
		}
		p.Elapsed = time.Since(start)
		if opts.OnProgress != nil {
			opts.OnProgress(p)
		}
	}
}

// Export writes the request log in the reference's TSV format.
func Export(ctx context.Context, store *db.Store, w io.Writer) (int64, error) {
	return store.ExportRequests(ctx, w)
}
