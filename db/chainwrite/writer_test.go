package chainwrite

import (
	"context"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db/dbtest"
)

// A queued write that returns rows fails the message, whether it is sent alone (at commit) or
// ahead of a read, whose result it would otherwise stand in for; with no rows but a RETURNING
// list too.
func TestQueuedWriteReturningRowsFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()
	for _, returning := range []string{
		"UPDATE chain_tip SET block_height = block_height RETURNING block_height",
		"UPDATE chain_tip SET block_height = block_height WHERE false RETURNING block_height",
	} {
		for _, then := range []struct {
			name string
			do   func(ctx context.Context, w *Writer) error
		}{
			{"at commit", func(context.Context, *Writer) error { return nil }},
			{"before a read", func(ctx context.Context, w *Writer) error {
				_, err := w.chainState(ctx, nil)
				return err
			}},
		} {
			err := NewStore(store).Ingest(ctx, time.Now(), IngestOptions{}, func(ctx context.Context, w *Writer) error {
				w.add(returning)
				return then.do(ctx, w)
			})
			if err == nil {
				t.Errorf("%s, %s: no error", returning, then.name)
			}
		}
	}
	// The same statement without RETURNING goes through both ways.
	err := NewStore(store).Ingest(ctx, time.Now(), IngestOptions{}, func(ctx context.Context, w *Writer) error {
		w.add("UPDATE chain_tip SET block_height = block_height")
		if _, err := w.chainState(ctx, nil); err != nil {
			return err
		}
		w.add("UPDATE chain_tip SET block_height = block_height")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
