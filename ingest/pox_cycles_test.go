package ingest

import (
	"math/big"
	"testing"
)

// The shares of the reference's PoX tests (epoch-3-transition cycle 14, regtest cycle 6): weight
// shares in binary floating point, stacked amount shares through 20 decimal places, which
// differ in the last digit (28.57142857142857 and 28.571428571428573 for the same 6/21).
func TestShares(t *testing.T) {
	for _, c := range []struct {
		weight, totalWeight float64
		amount, total       string
		weightPct, amtPct   float64
	}{
		{5, 9, "686251350000000000", "1372502700000000000", 55.55555555555556, 50},
		{3, 9, "457500900000000000", "1372502700000000000", 33.33333333333333, 33.333333333333336},
		{1, 9, "228750450000000000", "1372502700000000000", 11.11111111111111, 16.666666666666668},
		{6, 21, "5000340000000000", "17501190000000000", 28.57142857142857, 28.571428571428573},
		{9, 21, "7500510000000000", "17501190000000000", 42.857142857142854, 42.857142857142854},
		{0, 0, "0", "0", 0, 0},
		{1, 1, "1", "10000000000000000000", 100, 1e-17},
		// Below the 20th decimal place the quotient rounds to 0.
		{1, 1, "1", "300000000000000000000", 100, 0},
		{1, 1, "1", "200000000000000000000", 100, 1e-18},
	} {
		total, _ := new(big.Int).SetString(c.total, 10)
		if got := share(c.weight, c.totalWeight); got != c.weightPct {
			t.Errorf("share(%v, %v) = %v, want %v", c.weight, c.totalWeight, got, c.weightPct)
		}
		if got := decimalShare(c.amount, total); got != c.amtPct {
			t.Errorf("decimalShare(%s, %s) = %v, want %v", c.amount, c.total, got, c.amtPct)
		}
	}
}
