package db

import (
	"context"

	"github.com/uptrace/bun/dialect/pgdialect"
)

// BalancePoint is a principal's STX balance after one block height, read from its newest
// checkpoint at or below it.
type BalancePoint struct {
	BlockHeight int32  `bun:"block_height"`
	Balance     string `bun:"balance"`
	// ChangedAtHeight is the checkpoint's height: the newest block at or below BlockHeight that
	// changed the balance (nil before the principal's first).
	ChangedAtHeight *int32 `bun:"changed_at_height"`
}

// BalanceSpan is the range a principal's balance history covers: the height of its first
// checkpoint (0 when it has none) and the chain tip's height.
type BalanceSpan struct {
	First int32 `bun:"first"`
	Tip   int32 `bun:"tip"`
}

// StxBalanceSpan reads the principal's first checkpoint height and the tip: two index probes.
func (s *Store) StxBalanceSpan(ctx context.Context, principal string) (BalanceSpan, error) {
	var span BalanceSpan
	err := s.DB.NewRaw(`SELECT
		coalesce((SELECT block_height FROM principal_stx_checkpoints WHERE principal = ? ORDER BY block_height LIMIT 1), 0) AS first,
		coalesce((SELECT block_height FROM chain_tip WHERE id), 0) AS tip`, principal).Scan(ctx, &span)
	return span, err
}

// StxBalancePoints reads the principal's balance after each of the heights, in their order:
// one index probe into its checkpoints (t, as balanceSQL names the totals) per height, whatever
// the length of its history.
func (s *Store) StxBalancePoints(ctx context.Context, principal string, heights []int32) ([]*BalancePoint, error) {
	var points []*BalancePoint
	err := s.DB.NewRaw(`SELECT h.block_height, coalesce(`+balanceSQL+`, 0) AS balance, t.block_height AS changed_at_height
		FROM unnest(?1::integer[]) WITH ORDINALITY AS h(block_height, n)
		LEFT JOIN LATERAL (SELECT * FROM principal_stx_checkpoints
			WHERE principal = ?0 AND block_height <= h.block_height ORDER BY block_height DESC LIMIT 1) t ON true
		ORDER BY h.n`, principal, pgdialect.Array(heights)).Scan(ctx, &points)
	return points, err
}
