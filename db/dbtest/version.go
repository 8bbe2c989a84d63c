package dbtest

import (
	"testing"
	"time"

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
