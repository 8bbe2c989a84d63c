package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/chainwrite"
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
	// decodeAhead is how many records the decoding goroutine may run ahead of the database.
	decodeAhead = 64
)

// prepared is a record read and decoded ahead of the database, or the reader's error
// (io.EOF at the end of the file), which comes last.
type prepared struct {
	rec     *tsv.Record
	write   write
	err     error // decoding the record failed
	readErr error
}

// Replay applies every record of a TSV event log through the same code as the live observer,
// in file order, which must be ascending id order (the reference's files are): a record whose
// id is below the one before it stops the replay, as a replay run again would skip it for one
// applied before (see chainwrite.Writer.LogRequest). One goroutine reads and
// decodes records while the database applies earlier ones, in batches, each in one
// transaction together with the records' request-log rows, which keep their ids: a record
// whose id is already logged was applied before and is skipped. An interrupted replay
// therefore leaves a prefix of the file applied and can simply be run again; duplicate ids in
// a file are applied once. A record that fails rolls its batch back; the batch is then redone
// one record per transaction, so that the records before the failing one stay applied and the
// error names it.
func (in *Ingester) Replay(ctx context.Context, r *tsv.Reader, opts ReplayOptions) (Progress, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	records := make(chan prepared, decodeAhead)
	go decodeRecords(ctx, r, records)
	p := Progress{}
	start := time.Now()
	for {
		batch, applied, readErr, err := in.applyBatch(ctx, records)
		if err != nil && ctx.Err() == nil && len(batch) > 0 {
			applied, err = in.applyEach(ctx, batch)
		}
		for i, ok := range applied {
			p.Done++
			if ok {
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
		switch {
		case err != nil:
			return p, err
		case errors.Is(readErr, io.EOF):
			return p, nil
		case readErr != nil:
			return p, readErr
		}
	}
}

// decodeRecords reads and decodes records until the reader fails or ends, or a record's id is
// below the one before it.
func decodeRecords(ctx context.Context, r *tsv.Reader, out chan<- prepared) {
	last := int64(math.MinInt64)
	for {
		var p prepared
		p.rec, p.readErr = r.Next()
		if p.readErr == nil && p.rec.ID < last {
			p.readErr = fmt.Errorf("record id %d follows id %d: the log is not in ascending id order", p.rec.ID, last)
		}
		if p.readErr == nil {
			last = p.rec.ID
			if p.rec.Payload != nil {
				p.write, p.err = decode(replayed(p.rec))
			}
		}
		select {
		case out <- p:
		case <-ctx.Done():
			return
		}
		if p.readErr != nil {
			return
		}
	}
}

// applyBatch applies the next batch of records in one transaction. It returns the records it
// took, which of them were applied and the reader's error if the batch ended with it.
func (in *Ingester) applyBatch(ctx context.Context, records <-chan prepared) (batch []*tsv.Record, applied []bool, readErr, err error) {
	err = in.chain.Ingest(ctx, time.Time{}, chainwrite.IngestOptions{Relaxed: true}, func(ctx context.Context, w *chainwrite.Writer) error {
		for size := 0; len(batch) < replayBatchMessages && size < replayBatchBytes; {
			var p prepared
			select {
			case p = <-records:
			case <-ctx.Done():
				return ctx.Err()
			}
			if p.readErr != nil {
				readErr = p.readErr
				return nil
			}
			batch = append(batch, p.rec)
			applied = append(applied, false)
			size += len(p.rec.Payload)
			if p.rec.Payload == nil { // a NULL payload: nothing to replay
				continue
			}
			if p.err != nil {
				return recordError(p.rec, p.err)
			}
			ok, err := in.applyIn(ctx, w, replayed(p.rec), p.write)
			if err != nil {
				return recordError(p.rec, err)
			}
			applied[len(applied)-1] = ok
		}
		return nil
	})
	if err != nil {
		applied = nil
	}
	return batch, applied, readErr, err
}

// applyEach applies the records one transaction each, up to the first failure; it says which
// of the records it got to were applied.
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
