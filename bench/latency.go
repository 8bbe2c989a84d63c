package bench

import "time"

// Percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of sorted latencies, 0 when
// there are none.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}
