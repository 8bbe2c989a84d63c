package db

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// DemoChain is the mark of a database that holds the generated demo chain.
type DemoChain struct {
	bun.BaseModel `bun:"table:demo_chain"`

	OnlyRow   bool `bun:",pk,default:true"`
	ChainID   int64
	Generator string // what generated the chain
	Blocks    int
	Txs       int
	Complete  bool      // false while it is being loaded
	CreatedAt time.Time `bun:",nullzero,default:now()"`
}

// DemoChain returns the demo mark, or nil when the database holds no demo chain.
func (s *Store) DemoChain(ctx context.Context) (*DemoChain, error) {
	d := new(DemoChain)
	err := s.DB.NewSelect().Model(d).Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return d, err
}

// MarkDemoChain writes the demo mark (before the chain is loaded) or updates it.
func (s *Store) MarkDemoChain(ctx context.Context, d *DemoChain) error {
	d.OnlyRow = true
	_, err := s.DB.NewInsert().Model(d).
		On("CONFLICT (only_row) DO UPDATE").
		Set("chain_id = EXCLUDED.chain_id, generator = EXCLUDED.generator, blocks = EXCLUDED.blocks, txs = EXCLUDED.txs, complete = EXCLUDED.complete").
		Exec(ctx)
	return err
}

// HoldsChain reports whether any block, burn block or mempool transaction is stored.
func (s *Store) HoldsChain(ctx context.Context) (bool, error) {
	var holds bool
	err := s.DB.NewRaw(`SELECT EXISTS (SELECT 1 FROM blocks) OR EXISTS (SELECT 1 FROM burn_blocks)
		OR EXISTS (SELECT 1 FROM mempool_txs)`).Scan(ctx, &holds)
	return holds, err
}
