package dbtest

import (
	"context"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
)

// AwaitVersion waits, up to a minute, until the listener's chain state version satisfies ok,
// and returns it.
func AwaitVersion(tb testing.TB, l *notices.Listener, ok func(notices.StateVersion) bool) notices.StateVersion {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if v := l.Version(); ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the listener's version never reached the state awaited (now %+v)", l.Version())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// NewChainVersion is the condition that the version is live at a chain version other than
// after's.
func NewChainVersion(after notices.StateVersion) func(notices.StateVersion) bool {
	return func(v notices.StateVersion) bool { return v.Live && v.Chain != after.Chain }
}

// AwaitHeardBRC20 sends a BRC-20 notice on store's database and waits until l has heard it, live.
// Notices are heard in the order they are sent, so every notice committed before has been heard
// by then, whatever it moved (a chain message that changes nothing sends none); a caller whose
// reads leave the BRC-20 state alone sees no other effect.
func AwaitHeardBRC20(tb testing.TB, store *db.Store, l *notices.Listener) {
	tb.Helper()
	before := l.Version().Brc20
	if _, err := store.DB.ExecContext(context.Background(), "SELECT pg_notify(?, ?)", notices.Brc20Channel, `{"height":0,"hash":""}`); err != nil {
		tb.Fatal(err)
	}
	AwaitVersion(tb, l, func(v notices.StateVersion) bool { return v.Live && v.Brc20 != before })
}
