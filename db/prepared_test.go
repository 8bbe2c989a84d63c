package db

import (
	"testing"
	"time"
)

// A preparation serves between half of preparedMaxAge and all of it, each its own draw, so the
// statements prepared together at start-up are not all planned again in the same second.
func TestPreparedLifetimesSpread(t *testing.T) {
	lo, hi := preparedMaxAge, time.Duration(0)
	for range 1000 {
		d := preparedLifetime()
		if d < preparedMaxAge/2 || d >= preparedMaxAge {
			t.Fatalf("a preparation lives %s, outside [%s, %s)", d, preparedMaxAge/2, preparedMaxAge)
		}
		lo, hi = min(lo, d), max(hi, d)
	}
	if hi-lo < preparedMaxAge/4 {
		t.Errorf("1000 lifetimes all within %s to %s: they expire together", lo, hi)
	}
}
