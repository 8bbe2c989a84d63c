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

// A replay applies up to replayBatchMessages records (and about replayBatchBytes of payload)
// in one transaction: the transaction's own round trips (begin, lock, commit) and the writes
// of burn blocks and mempool messages, which need no read, are then shared by the batch.
const (
	replayBatchMessages = 128
	replayBatchBytes    = 16 << 20
)

// Replay applies every record of a TSV event log through the same code as the live observer,
// in file order (the reference's files are in ascending id order). Records are applied in
// batches, each in one transaction together with the records' request-log rows, which keep
// their ids: a record whose id is already logged was applied before and is skipped. An
// interrupted replay therefore leaves a prefix of the file applied and can simply be run
// again; duplicate ids in a file are applied once. A record that fails rolls its batch back;
// the batch is then redone one record per transaction, so that the records before the failing
// one stay applied and the error names it.
func (in *Ingester) Replay(ctx context.Context, r *tsv.Reader, opts ReplayOptions) (Progress, error) {
	p := Progress{}
	start := time.Now()
	for {
		batch, readErr := readBatch(r)
		if len(batch) > 0 {
			applied, err := in.applyBatch(ctx, batch)
			if err != nil {
				if ctx.Err() != nil {
					return p, err
				}
				applied, err = in.applyEach(ctx, batch)
			}
			for i, rec := range applied {
				p.Done++
				if rec {
					p.Applied++
					if batch[i].Path == PathNewBlock {
						p.Blocks++
					}
				} else {
					p.Skipped++
				}
				p.Elapsed = time.Since(start)
				if opts.OnProgress != nil {
					opts.OnProgress(p)
				}
			}
			if err != nil {
				return p, err
			}
		}
		if errors.Is(readErr, io.EOF) {
			return p, nil
		}
		if readErr != nil {
			return p, readErr
		}
	}
}

// readBatch reads the next batch of records; the error is the reader's, after the batch.
func readBatch(r *tsv.Reader) ([]*tsv.Record, error) {
	var batch []*tsv.Record
	size := 0
	for len(batch) < replayBatchMessages && size < replayBatchBytes {
		rec, err := r.Next()
		if err != nil {
			return batch, err
		}
		batch = append(batch, rec)
		size += len(rec.Payload)
	}
	return batch, nil
}

// applyBatch applies the records in one transaction and says which were applied.
func (in *Ingester) applyBatch(ctx context.Context, batch []*tsv.Record) ([]bool, error) {
	applied := make([]bool, len(batch))
	err := in.store.Ingest(ctx, batch[0].ReceivedAt, db.IngestOptions{Relaxed: true}, func(ctx context.Context, w *db.Writer) error {
		for i, rec := range batch {
			if rec.Payload == nil { // a NULL payload: nothing to replay
				continue
			}
			ok, err := in.applyIn(ctx, w, replayed(rec))
			if err != nil {
				return recordError(rec, err)
			}
			applied[i] = ok
		}
		return nil
	})
	return applied, err
}

// applyEach applies the records one transaction each, up to the first failure; it returns
// the records it got to.
func (in *Ingester) applyEach(ctx context.Context, batch []*tsv.Record) ([]bool, error) {
	var applied []bool
	for _, rec := range batch {
		ok := false
		if rec.Payload != nil {
			var err error
			if ok, err = in.Apply(ctx, replayed(rec)); err != nil {
				return applied, recordError(rec, err)
			}
		}
		applied = append(applied, ok)
	}
	return applied, nil
}

func replayed(rec *tsv.Record) Message {
	return Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt, ID: &rec.ID, Relaxed: true}
}

func recordError(rec *tsv.Record, err error) error {
	return fmt.Errorf("record id %d (%s): %w", rec.ID, rec.Path, err)
}

// Export writes the request log in the reference's TSV format.
func Export(ctx context.Context, store *db.Store, w io.Writer) (int64, error) {
	return store.ExportRequests(ctx, w)
}
