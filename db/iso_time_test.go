package db

import (
	"math/rand/v2"
	"testing"
	"time"
)

// A unix time renders as time.Format renders it in Date.toISOString's layout: leap days, the
// ends of years and days, the epoch, times before it, and years of fewer and more than four
// digits.
func TestISOTimeIsFormats(t *testing.T) {
	times := []int64{0, -1, 1, 951782400, 951868799, 1704067199, 1704067200, 253402300799, 253402300800,
		-62135596800, -62135596801, 1701800600}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		times = append(times, r.Int64N(2*253402300800)-253402300800)
	}
	for _, unix := range times {
		if got, want := isoTime(unix), time.Unix(unix, 0).UTC().Format("2006-01-02T15:04:05.000Z"); got != want {
			t.Errorf("isoTime(%d) = %s, want %s", unix, got, want)
		}
	}
}

func BenchmarkISOTime(b *testing.B) {
	for i := range b.N {
		isoTime(1701800600 + int64(i))
	}
}
