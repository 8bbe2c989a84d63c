package db

import (
	"github.com/uptrace/bun"
)

// PoxCycle is a reward set the node announced for a reward cycle, with its totals, keyed to the
// block that carried it.
type PoxCycle struct {
	bun.BaseModel `bun:"table:pox_cycles"`

	CycleNumber        int32  `bun:"cycle_number,pk"`
	IndexBlockHash     []byte `bun:"index_block_hash,pk"`
	BlockHeight        int32  `bun:"block_height"`
	Canonical          bool   `bun:"canonical"`
	TotalWeight        int32  `bun:"total_weight"`
	TotalStackedAmount string `bun:"total_stacked_amount"`
	TotalSigners       int32  `bun:"total_signers"`
}

// PoxSigner is one signer of an announced reward set. The stacker counts are not stored: reads
// derive them from the pox-4 events of the cycle.
type PoxSigner struct {
	bun.BaseModel `bun:"table:pox_signers"`

	IndexBlockHash       []byte  `bun:"index_block_hash,pk"`
	CycleNumber          int32   `bun:"cycle_number,pk"`
	Position             int32   `bun:"position,pk"`
	BlockHeight          int32   `bun:"block_height"`
	Canonical            bool    `bun:"canonical"`
	SigningKey           []byte  `bun:"signing_key"`
	SignerAddress        string  `bun:"signer_address"`
	Weight               int32   `bun:"weight"`
	StackedAmount        string  `bun:"stacked_amount"`
	WeightPercent        float64 `bun:"weight_percent"`
	StackedAmountPercent float64 `bun:"stacked_amount_percent"`
	SoloStackerCount     int32   `bun:"solo_stacker_count,scanonly"`
	PooledStackerCount   int32   `bun:"pooled_stacker_count,scanonly"`
}

// PoxSet is the reward set a block announces: its cycle and signers (rows completed by
// ApplyBlock with the block's position and canonical flag).
type PoxSet struct {
	Cycle   *PoxCycle
	Signers []*PoxSigner
}
