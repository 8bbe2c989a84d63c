// Package inscriptionfeed writes small chainhook inscription_feed payloads (inscription reveals
// and moves, block by block) and applies them through the ingestion, for tests of the BRC-20
// reads.
package inscriptionfeed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/ingest"
)

// Chain hands out inscription numbers and sats across the blocks it builds.
type Chain struct {
	number int64
	sat    int64
}

// Block is one block under construction: each Reveal or Move is a transaction of its own, in
// call order.
type Block struct {
	c         *Chain
	height    int32
	timestamp int64
	txs       []any
}

type obj = map[string]any

// Hash is the stand-in hash of the block at height (hex, no 0x).
func Hash(height int32) string { return hashOf("block", height) }

func hashOf(parts ...any) string {
	h := sha256.Sum256(fmt.Append(nil, parts...))
	return hex.EncodeToString(h[:])
}

// Block starts the block at height with its header time in seconds.
func (c *Chain) Block(height int32, timestamp int64) *Block {
	return &Block{c: c, height: height, timestamp: timestamp}
}

// Reveal adds a transaction revealing a text/plain inscription with content to address (""
// for an output without one) and returns its inscription id and sat.
func (b *Block) Reveal(address, content string) (id string, sat int64) {
	txid := hashOf("tx", b.height, len(b.txs))
	id, sat = txid+"i0", b.c.sat+1_000_000
	b.c.sat, b.c.number = sat, b.c.number+1
	var inscriber any
	if address != "" {
		inscriber = address
	}
	b.add(txid, obj{"inscription_revealed": obj{
		"content_bytes": "0x" + hex.EncodeToString([]byte(content)), "content_type": "text/plain;charset=utf-8",
		"content_length": len(content), "inscription_number": obj{"jubilee": b.c.number, "classic": b.c.number},
		"inscription_fee": 1000, "inscription_id": id, "inscription_input_index": 0, "inscription_output_value": 546,
		"inscription_pointer": nil, "inscriber_address": inscriber, "delegate": nil, "metaprotocol": nil, "metadata": nil,
		"parent": nil, "ordinal_number": sat, "ordinal_block_height": b.height, "ordinal_offset": 0,
		"satpoint_post_inscription": txid + ":0:0", "transfers_pre_inscription": 0, "curse_type": nil, "tx_index": len(b.txs)}})
	return id, sat
}

// Move adds a transaction moving the inscription on sat to address ("" spends it in fees).
func (b *Block) Move(sat int64, address string) {
	txid := hashOf("tx", b.height, len(b.txs))
	dest := obj{"type": "transferred", "value": address}
	if address == "" {
		dest = obj{"type": "spent_in_fees", "value": ""}
	}
	b.add(txid, obj{"inscription_transferred": obj{"destination": dest, "ordinal_number": sat,
		"satpoint_pre_transfer": "", "satpoint_post_transfer": txid + ":0:0", "post_transfer_output_value": 546,
		"tx_index": len(b.txs)}})
}

func (b *Block) add(txid string, op obj) {
	b.txs = append(b.txs, obj{"transaction_identifier": obj{"hash": "0x" + txid}, "operations": []any{},
		"metadata": obj{"index": len(b.txs), "ordinal_operations": []any{op}}})
}

func (b *Block) json() obj {
	return obj{"block_identifier": obj{"index": b.height, "hash": "0x" + Hash(b.height)},
		"parent_block_identifier": obj{"index": b.height - 1, "hash": "0x" + Hash(b.height-1)},
		"timestamp":               b.timestamp, "transactions": b.txs, "metadata": obj{"network": "mainnet"}}
}

// Payload is the payload applying the block.
func (b *Block) Payload() []byte { return payload([]any{b.json()}, []any{}) }

// RollbackPayload is the payload rolling the block back.
func (b *Block) RollbackPayload() []byte { return payload([]any{}, []any{b.json()}) }

func payload(apply, rollback []any) []byte {
	out, err := json.Marshal(obj{"apply": apply, "rollback": rollback, "chainhook": obj{
		"uuid": "00000000-0000-4000-8000-000000000000", "is_streaming_blocks": true,
		"predicate": obj{"scope": "ordinals_protocol", "operation": "inscription_feed", "meta_protocols": []string{"brc-20"}}}})
	if err != nil {
		panic(err) // only plain values above
	}
	return out
}

// Apply applies a payload to store through the inscription ingestion.
func Apply(ctx context.Context, store *db.Store, payload []byte) error {
	p, err := ingest.DecodeOrdinals(payload)
	if err != nil {
		return err
	}
	_, err = ingest.ApplyOrdinals(ctx, store, p)
	return err
}
