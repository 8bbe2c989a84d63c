// Package unisat reads the input file of UniSat's BRC-20 indexer library (one inscription reveal
// or move per line, real mainnet data) and rewrites it as chainhook inscription_feed payloads,
// the form the inscription ingestion receives.
//
// Line format (space-separated): is_transfer, txid (internal byte order), inscription index in
// its reveal, vout, output value (0: spent as fee), owner pkScript hex, inscription number,
// content hex (empty for moves), create key (uint32 LE height + uint64 LE index of the reveal in
// its block; a move carries the key of the reveal it moves), height, tx index, block time.
// The file has no sat numbers or block hashes: every inscription gets a sat derived from its
// create key, and every block a hash derived from its height.
package unisat

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/stxgraph/stxgraph/bitcoin/address"
)

// Block is one block's payload.
type Block struct {
	Height  int32
	Hash    string // hex, no 0x
	Payload []byte // {"apply":[block],"rollback":[],"chainhook":{…}}
	// RollbackPayload rolls the block back: {"apply":[],"rollback":[block],…}.
	RollbackPayload []byte
	Operations      int // reveals and moves in the block
}

type line struct {
	move      bool
	txid      string
	index     int
	vout      int
	value     int64
	script    []byte
	number    int64
	content   []byte
	sat       int64
	height    int32
	txIndex   int32
	timestamp int64
}

// Blocks reads the file and returns one payload per block, in file order.
func Blocks(r io.Reader) ([]Block, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var lines []line
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		l, err := parseLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var out []Block
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && lines[j].height == lines[i].height {
			j++
		}
		b, err := block(lines[i:j])
		if err != nil {
			return nil, err
		}
		out = append(out, b)
		i = j
	}
	return out, nil
}

func parseLine(s string) (line, error) {
	f := strings.Split(s, " ")
	if len(f) != 12 {
		return line{}, fmt.Errorf("%d fields, want 12", len(f))
	}
	var l line
	var err error
	l.move = f[0] == "true"
	txid, err := hex.DecodeString(f[1])
	if err != nil || len(txid) != 32 {
		return l, fmt.Errorf("txid %q", f[1])
	}
	for i, j := 0, 31; i < j; i, j = i+1, j-1 {
		txid[i], txid[j] = txid[j], txid[i]
	}
	l.txid = hex.EncodeToString(txid)
	ints := []*int64{new(int64), new(int64), &l.value, &l.number}
	for i, k := range []int{2, 3, 4, 6} {
		if *ints[i], err = strconv.ParseInt(f[k], 10, 64); err != nil {
			return l, fmt.Errorf("field %d: %v", k+1, err)
		}
	}
	l.index, l.vout = int(*ints[0]), int(*ints[1])
	if l.script, err = hex.DecodeString(f[5]); err != nil {
		return l, fmt.Errorf("pkScript: %v", err)
	}
	if l.content, err = hex.DecodeString(f[7]); err != nil {
		return l, fmt.Errorf("content: %v", err)
	}
	key, err := hex.DecodeString(f[8])
	if err != nil || len(key) != 12 {
		return l, fmt.Errorf("create key %q", f[8])
	}
	// A sat of its own for every inscription: the reveal's height and index in its block.
	l.sat = int64(binary.LittleEndian.Uint32(key[:4]))<<24 | int64(binary.LittleEndian.Uint64(key[4:])&(1<<24-1))
	h, err := strconv.ParseInt(f[9], 10, 32)
	if err != nil {
		return l, fmt.Errorf("height: %v", err)
	}
	ti, err := strconv.ParseInt(f[10], 10, 32)
	if err != nil {
		return l, fmt.Errorf("tx index: %v", err)
	}
	l.height, l.txIndex = int32(h), int32(ti)
	if l.timestamp, err = strconv.ParseInt(f[11], 10, 64); err != nil {
		return l, fmt.Errorf("block time: %v", err)
	}
	return l, nil
}

// Hash is the stand-in hash of the block at height.
func Hash(height int32) string {
	h := sha256.Sum256([]byte("unisat block " + strconv.Itoa(int(height))))
	return hex.EncodeToString(h[:])
}

type obj = map[string]any

func block(lines []line) (Block, error) {
	height := lines[0].height
	b := Block{Height: height, Hash: Hash(height), Operations: len(lines)}
	var txs []obj
	byIndex := map[int32]obj{}
	for _, l := range lines {
		tx, ok := byIndex[l.txIndex]
		if !ok {
			tx = obj{"transaction_identifier": obj{"hash": "0x" + l.txid}, "operations": []any{},
				"metadata": obj{"index": l.txIndex, "ordinal_operations": []any{}}}
			byIndex[l.txIndex] = tx
			txs = append(txs, tx)
		}
		md := tx["metadata"].(obj)
		satpoint := fmt.Sprintf("%s:%d:0", l.txid, l.vout)
		addr, hasAddr := address.FromScript(l.script, address.Mainnet)
		var op obj
		if !l.move {
			var inscriber any
			if hasAddr && l.value > 0 {
				inscriber = addr
			}
			op = obj{"inscription_revealed": obj{
				"content_bytes": "0x" + hex.EncodeToString(l.content), "content_type": "text/plain;charset=utf-8",
				"content_length": len(l.content), "inscription_number": obj{"jubilee": l.number, "classic": l.number},
				"inscription_fee": 0, "inscription_id": fmt.Sprintf("%si%d", l.txid, l.index), "inscription_input_index": 0,
				"inscription_output_value": l.value, "inscription_pointer": nil, "inscriber_address": inscriber,
				"delegate": nil, "metaprotocol": nil, "metadata": nil, "parent": nil, "ordinal_number": l.sat,
				"ordinal_block_height": height, "ordinal_offset": 0, "satpoint_post_inscription": satpoint,
				"transfers_pre_inscription": 0, "curse_type": nil, "tx_index": l.txIndex}}
		} else {
			dest := obj{"type": "transferred", "value": addr}
			switch {
			case l.value == 0:
				dest = obj{"type": "spent_in_fees", "value": ""}
			case !hasAddr:
				dest = obj{"type": "burnt", "value": hex.EncodeToString(l.script)}
			}
			op = obj{"inscription_transferred": obj{"destination": dest, "ordinal_number": l.sat,
				"satpoint_pre_transfer": "", "satpoint_post_transfer": satpoint, "post_transfer_output_value": l.value,
				"tx_index": l.txIndex}}
		}
		md["ordinal_operations"] = append(md["ordinal_operations"].([]any), op)
	}
	blk := obj{"block_identifier": obj{"index": height, "hash": "0x" + b.Hash},
		"parent_block_identifier": obj{"index": height - 1, "hash": "0x" + Hash(height-1)},
		"timestamp":               lines[0].timestamp, "transactions": txs, "metadata": obj{"network": "mainnet"}}
	var err error
	if b.Payload, err = payload([]any{blk}, []any{}); err != nil {
		return b, err
	}
	b.RollbackPayload, err = payload([]any{}, []any{blk})
	return b, err
}

func payload(apply, rollback []any) ([]byte, error) {
	return json.Marshal(obj{"apply": apply, "rollback": rollback, "chainhook": obj{
		"uuid": "00000000-0000-4000-8000-000000000000", "is_streaming_blocks": false,
		"predicate": obj{"scope": "ordinals_protocol", "operation": "inscription_feed", "meta_protocols": []string{"brc-20"}}}})
}
