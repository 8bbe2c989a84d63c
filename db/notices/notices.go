// Package notices carries the announcements of committed chain data: ingestion adds each to the
// notice log in its transaction (InsertSQL), a trigger numbers it and sends it with NOTIFY on
// commit, and every API process's Listener hears it, reads what it missed from the log, and
// fans it out to its subscriptions. It defines the payloads on both channels, the listener and
// the reads of the log.
package notices

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// EventsChannel is the PostgreSQL NOTIFY channel on which ingestion announces new blocks,
// microblocks and mempool transactions, in the transaction that stores them.
const EventsChannel = "stxgraph_events"

// Notice kinds sent on EventsChannel.
const (
	KindBlock      = "block"
	KindMicroblock = "microblock"
	KindMempool    = "mempool"
	// KindBurnBlock is a burn block applied, KindMempoolDrop transactions the node dropped
	// from its mempool: no subscription reports them, but they change what reads answer.
	KindBurnBlock   = "burn_block"
	KindMempoolDrop = "mempool_drop"
	// KindBrc20 is a BRC-20 block applied or rolled back, heard on Brc20Channel.
	KindBrc20 = "brc20"
	// KindReorg is a fork that became the canonical chain: the blocks that left it and those
	// that joined it.
	KindReorg = "reorg"
)

// ReorgBlock names a block in a reorg notice.
type ReorgBlock struct {
	Height         int32 `json:"block_height"`
	IndexBlockHash Hash  `json:"index_block_hash"`
}

// Notice is one announcement of committed chain data, as ingestion sends it on EventsChannel.
type Notice struct {
	// Seq is the notice's place in the notice log: notices are numbered in commit order.
	Seq              int64
	Kind             string
	IndexBlockHash   []byte       // block
	BlockHeight      int32        // block, microblock
	Canonical        bool         // block
	MicroblockHashes [][]byte     // microblock
	TxIDs            [][]byte     // mempool, mempool_drop
	Principals       []string     // mempool, mempool_drop
	Brc20            Brc20        // brc20
	RolledBack       []ReorgBlock // reorg
	Restored         []ReorgBlock // reorg
}

// Payload is a notice's payload on EventsChannel, as ingestion writes it (chainwrite.Writer)
// and Parse reads it. Fields a kind does not use are left out of the payload.
type Payload struct {
	Seq              int64  `json:"seq,omitempty"` // added by the notice log
	Kind             string `json:"kind"`
	IndexBlockHash   Hash   `json:"index_block_hash,omitempty"`
	BlockHeight      int32  `json:"block_height,omitempty"`
	Canonical        bool   `json:"canonical,omitempty"`
	MicroblockHashes []Hash `json:"microblock_hashes,omitempty"`
	TxIDs            []Hash `json:"tx_ids,omitempty"`
	// Principals are those whose pending state a mempool change moves (chainwrite's
	// mempoolNoticesSQL names them).
	Principals []string     `json:"principals,omitempty"`
	RolledBack []ReorgBlock `json:"rolled_back,omitempty"`
	Restored   []ReorgBlock `json:"restored,omitempty"`
}

// Hash is a hash in a notice, written "0x" and hex; "" reads as nil.
type Hash []byte

func (h Hash) MarshalText() ([]byte, error) { return []byte("0x" + hex.EncodeToString(h)), nil }

func (h *Hash) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*h = nil
		return nil
	}
	b, err := hex.DecodeString(strings.TrimPrefix(string(text), "0x"))
	if err != nil {
		return fmt.Errorf("notice hash %q: %w", text, err)
	}
	*h = b
	return nil
}

// Parse decodes a notification payload.
func Parse(payload string) (Notice, error) {
	var j Payload
	if err := json.Unmarshal([]byte(payload), &j); err != nil {
		return Notice{}, fmt.Errorf("notice %q: %w", payload, err)
	}
	return Notice{Seq: j.Seq, Kind: j.Kind, IndexBlockHash: j.IndexBlockHash, BlockHeight: j.BlockHeight, Canonical: j.Canonical,
		MicroblockHashes: hashBytes(j.MicroblockHashes), TxIDs: hashBytes(j.TxIDs), Principals: j.Principals, RolledBack: j.RolledBack, Restored: j.Restored}, nil
}

// Pending names the principals whose pending state a mempool notice changed. It is nil when the
// notice does not say (a notice of another kind, or a mempool notice that names no principal, as
// those logged before notices named them): then any principal's pending state may have changed.
func (n Notice) Pending() []string {
	if (n.Kind != KindMempool && n.Kind != KindMempoolDrop) || len(n.Principals) == 0 {
		return nil
	}
	return n.Principals
}

// hashBytes converts a notice's hashes (never nil, as a statement may take them as an array).
func hashBytes(hs []Hash) [][]byte {
	out := make([][]byte, len(hs))
	for i, h := range hs {
		out[i] = h
	}
	return out
}

// parseChannelNotice decodes a payload heard on, or kept for, channel.
func parseChannelNotice(channel, payload string) (Notice, error) {
	if channel == Brc20Channel {
		b, err := ParseBrc20(payload)
		return Notice{Seq: b.Seq, Kind: KindBrc20, BlockHeight: b.Height, Brc20: b}, err
	}
	return Parse(payload)
}

// InsertSQL adds a notice (channel, payload) to the notice log, whose trigger numbers it and
// sends it on commit.
const InsertSQL = "INSERT INTO notices (channel, payload) VALUES (?, ?)"
