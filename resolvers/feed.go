package resolvers

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
)

// A feed's position is the number of a notice in the notice log and the index of an item among
// that notice's items: "<seq>.<index>". Notices are numbered in commit order, so a position
// says exactly what a client has seen.
type position struct {
	seq   int64
	index int
}

func (p position) String() string { return strconv.FormatInt(p.seq, 10) + "." + strconv.Itoa(p.index) }

func parsePosition(s string) (position, error) {
	seq, index, ok := strings.Cut(s, ".")
	n, err1 := strconv.ParseInt(seq, 10, 64)
	i, err2 := strconv.Atoi(index)
	if !ok || err1 != nil || err2 != nil || n < 0 || i < 0 {
		return position{}, invalid("invalid feed position %q: pass the position of an item this feed sent", s)
	}
	return position{seq: n, index: i}, nil
}

// feed sends one subscriber its items: from the notice log after a position, then live, each
// notice once and in order.
type feed[T any] struct {
	store *db.Store
	items func(context.Context, notices.Notice) ([]*T, error)
	stamp func(*T, string)
	out   chan *T

	resume bool
	from   position // with resume: the last item the client has
	last   int64    // the last notice sent; 0 before the first
}

// checkResumable refuses a position the log no longer holds, or one it never had.
func (f *feed[T]) checkResumable(ctx context.Context, from position) error {
	first, last, err := notices.Range(ctx, f.store.DB)
	if err != nil {
		return stxgraph.Errorf(stxgraph.EUNAVAILABLE, "the feed cannot be read now; try again")
	}
	switch {
	case from.seq > last:
		return invalid("feed position %s is ahead of the feed (its newest notice is %d)", from, last)
	case first > 0 && from.seq < first-1:
		return invalid("feed position %s is older than the feed keeps (from notice %d); subscribe without a position and read the chain to catch up", from, first)
	}
	return nil
}

func (f *feed[T]) run(ctx context.Context, heard <-chan notices.Notice) {
	if f.resume {
		f.last = f.from.seq - 1
		if !f.readLog(ctx, 0) {
			return
		}
	}
	for n := range heard {
		if n.Seq != 0 && f.last != 0 && n.Seq > f.last+1 && !f.readLog(ctx, n.Seq) {
			return
		}
		if n.Seq != 0 && n.Seq <= f.last {
			continue
		}
		if !f.send(ctx, n) {
			return
		}
	}
}

// readLog sends the logged notices after the last one sent and before until (0: all); false
// when the subscriber is gone.
func (f *feed[T]) readLog(ctx context.Context, until int64) bool {
	gone := false
	err := notices.EachAfter(ctx, f.store.DB, f.last, until, func(n notices.Notice) bool {
		gone = !f.send(ctx, n)
		return !gone
	})
	if err != nil {
		logItem(ctx, notices.Notice{Seq: f.last + 1}, fmt.Errorf("reading the notice log: %w", err))
	}
	return !gone && ctx.Err() == nil
}

// send sends a notice's items, after the resumed position; false when the subscriber is gone.
func (f *feed[T]) send(ctx context.Context, n notices.Notice) bool {
	if n.Seq != 0 {
		f.last = n.Seq
	}
	items, err := f.items(ctx, n)
	if err != nil {
		logItem(ctx, n, err)
		return ctx.Err() == nil
	}
	for i, it := range items {
		if it == nil || (f.resume && n.Seq == f.from.seq && i <= f.from.index) {
			continue
		}
		f.stamp(it, position{seq: n.Seq, index: i}.String())
		select {
		case f.out <- it:
		case <-ctx.Done():
			return false
		}
	}
	return true
}
