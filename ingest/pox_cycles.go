package ingest

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// txVersionMainnet is the version byte that starts a mainnet transaction.
const txVersionMainnet = 0x00

// poxSet is the reward set a block announces (nil when it announces none). A set without
// signers (before the signer era) is still a cycle, with zero totals.
func poxSet(m *blockMessage) (*db.PoxSet, error) {
	if m.RewardSet == nil {
		return nil, nil
	}
	if m.CycleNumber == nil {
		return nil, malformed("reward_set without cycle_number")
	}
	mainnet := blockIsMainnet(m)
	totalWeight := int32(0)
	totalStacked := new(big.Int)
	for _, s := range m.RewardSet.Signers {
		totalWeight += s.Weight
		amt, _ := new(big.Int).SetString(s.StackedAmt.orZero(), 10)
		totalStacked.Add(totalStacked, amt)
	}
	set := &db.PoxSet{Cycle: &db.PoxCycle{
		CycleNumber: *m.CycleNumber, TotalWeight: totalWeight, TotalStackedAmount: totalStacked.String(),
		TotalSigners: int32(len(m.RewardSet.Signers)),
	}}
	for i, s := range m.RewardSet.Signers {
		set.Signers = append(set.Signers, &db.PoxSigner{
			Position: int32(i), SigningKey: s.SigningKey, SignerAddress: tx.KeyAddress(s.SigningKey, mainnet).String(),
			Weight: s.Weight, StackedAmount: s.StackedAmt.orZero(),
			WeightPercent:        share(float64(s.Weight), float64(totalWeight)),
			StackedAmountPercent: decimalShare(s.StackedAmt.orZero(), totalStacked),
		})
	}
	return set, nil
}

// blockIsMainnet tells the network from the version byte of the block's first transaction that
// the node serialized (not a synthetic one); a block without any is taken for testnet.
func blockIsMainnet(m *blockMessage) bool {
	for _, t := range m.Transactions {
		if !isSynthetic(t.RawTx) && len(t.RawTx) > 0 {
			return t.RawTx[0] == txVersionMainnet
		}
	}
	return false
}

// share is part of total in percent, in binary floating point as the reference computes weight
// shares; 0 when total is 0.
func share(part, total float64) float64 {
	if total == 0 {
		return 0
	}
	return part / total * 100
}

// sharePlaces is the decimal places the reference keeps of an amount over the total (its
// decimal library's default) before scaling to percent and rounding to a float.
const sharePlaces = 20

// decimalShare is amount over total in percent, computed as the reference computes stacked
// amount shares: the quotient rounded half up to 20 decimal places, times 100, then read as the
// nearest float; 0 when total is 0.
func decimalShare(amount string, total *big.Int) float64 {
	a, ok := new(big.Int).SetString(amount, 10)
	if !ok || total.Sign() == 0 {
		return 0
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(sharePlaces), nil)
	// round(a * 10^20 / total) half up = floor((2 * a * 10^20 + total) / (2 * total))
	num := new(big.Int).Mul(a, scale)
	num.Lsh(num, 1).Add(num, total)
	q := num.Quo(num, new(big.Int).Lsh(total, 1))
	// q / 10^20 * 100 = q / 10^18, written out in decimal and parsed.
	digits := q.String()
	const fracDigits = sharePlaces - 2
	if len(digits) <= fracDigits {
		digits = strings.Repeat("0", fracDigits-len(digits)+1) + digits
	}
	f, _ := strconv.ParseFloat(digits[:len(digits)-fracDigits]+"."+digits[len(digits)-fracDigits:], 64)
	return f
}
