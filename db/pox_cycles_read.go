package db

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/stxgraph/stxgraph/bitcoin/address"
	"github.com/stxgraph/stxgraph/stacks/c32"
)

// Reads of the announced reward sets and of the stackers behind their signers, as the reference
// counts them: a cycle's stackers are, per stacker, the newest pox-4 operation whose range of
// cycles covers the cycle, solo (stack-stx, stack-extend: the signer key is the operation's)
// or pooled (delegate-stack-*: the signer key is that of the pool operator's aggregation
// commit for the cycle). The reference's solo list names stack-increase as "stacks-increase",
// which no event is called, so a stack-increase never counts; nor here.

// PoxCyclePage is a page of announced cycles with the number of them.
type PoxCyclePage struct {
	Total   int32
	Results []*PoxCycle
}

// PoxSignerPage is a page of a cycle's signers with the number of them.
type PoxSignerPage struct {
	Total   int32
	Results []*PoxSigner
}

// PoxStackerPage is a page of a signer's stackers with the number of them.
type PoxStackerPage struct {
	Total   int32
	Results []*PoxStacker
}

// PoxStacker is a stacker behind a signer in a cycle.
type PoxStacker struct {
	StackerAddress string `bun:"stacker"`
	// StackedAmount is the amount locked after the stacker's newest covering operation.
	StackedAmount string `bun:"locked"`
	// PoxAddr is the operation's reward address tuple as stored ({"version","hashbytes"}, hex).
	PoxAddr     json.RawMessage `bun:"pox_addr"`
	StackerType string          `bun:"stacker_type"`
	// The cycle and signer the stacker was read for.
	CycleNumber int32  `bun:"cycle_number"`
	SigningKey  []byte `bun:"signing_key"`
}

// PoxAddress is the operation's reward address as a Bitcoin address on the stacker's network
// (that of its Stacks address); nil when the tuple has no standard encoding.
func (s *PoxStacker) PoxAddress() *string {
	var tuple struct {
		Version   string `json:"version"`
		Hashbytes string `json:"hashbytes"`
	}
	if json.Unmarshal(s.PoxAddr, &tuple) != nil {
		return nil
	}
	version, err1 := hex.DecodeString(strings.TrimPrefix(tuple.Version, "0x"))
	hash, err2 := hex.DecodeString(strings.TrimPrefix(tuple.Hashbytes, "0x"))
	if err1 != nil || err2 != nil || len(version) != 1 {
		return nil
	}
	network := address.Testnet
	if p, err := c32.ParsePrincipal(s.StackerAddress); err == nil && p.Address.IsMainnet() {
		network = address.Mainnet
	}
	a, ok := address.FromPox(version[0], hash, network)
	if !ok {
		return nil
	}
	return &a
}

// poxCycleSelect lists the columns of a cycle.
const poxCycleSelect = `SELECT cycle_number, index_block_hash, block_height, canonical, total_weight, total_stacked_amount, total_signers
	FROM pox_cycles`

// PoxCycles returns a page of the canonical announced cycles, highest cycle first.
func (s *Store) PoxCycles(ctx context.Context, limit, offset int) (*PoxCyclePage, error) {
	p := &PoxCyclePage{}
	if err := s.scanPrepared(ctx, poxCycleSelect+` WHERE canonical ORDER BY cycle_number DESC LIMIT $1 OFFSET $2`,
		&p.Results, limit, offset); err != nil {
		return nil, err
	}
	return p, s.scanPrepared(ctx, `SELECT count(*) FROM pox_cycles WHERE canonical`, &p.Total)
}

// PoxCycle returns the canonical announcement of a cycle (the earliest, should there be
// several), or nil.
func (s *Store) PoxCycle(ctx context.Context, cycle int32) (*PoxCycle, error) {
	var cs []*PoxCycle
	err := s.scanPrepared(ctx, poxCycleSelect+` WHERE canonical AND cycle_number = $1 ORDER BY block_height LIMIT 1`, &cs, cycle)
	return first(cs, err)
}

// poxStackersSQL defines the stackers CTE of the cycle k.c (from the caller's unnest of keys):
// one row per stacker and kind (stacker, signer_key as 0x-hex text, locked, pox_addr,
// stacker_type). pox-4 locks for at most 12 cycles, so the operations covering the cycle started
// at most 12 cycles before it, which bounds the events read to those of the cycles around it
// (pox_events_pox4_cycle_idx).
const poxStackersSQL = `WITH ops AS (
	SELECT stacker, name, data, locked, block_height, microblock_sequence, tx_index, event_index,
		(data->>'start_cycle_id')::numeric AS start_cycle, (data->>'end_cycle_id')::numeric AS end_cycle
	FROM pox_events
	WHERE pox_version = 4 AND canonical AND microblock_canonical
		AND name IN ('stack-stx', 'stack-extend', 'delegate-stack-stx', 'delegate-stack-increase', 'delegate-stack-extend',
			'stack-aggregation-commit', 'stack-aggregation-commit-indexed')
		AND (data->>'start_cycle_id')::numeric BETWEEN k.c - 12 AND k.c
), commits AS (
	SELECT DISTINCT ON (stacker) stacker, data->>'signer_key' AS signer_key FROM ops
	WHERE name IN ('stack-aggregation-commit', 'stack-aggregation-commit-indexed') AND start_cycle = k.c AND end_cycle = k.c + 1
	ORDER BY stacker, block_height DESC, tx_index DESC, event_index DESC
), stackers AS (
	(SELECT DISTINCT ON (o.stacker) o.stacker, c.signer_key, o.locked, o.data->'pox_addr' AS pox_addr, 'pooled' AS stacker_type
	FROM ops o LEFT JOIN commits c ON c.stacker = o.data->>'delegator'
	WHERE o.name IN ('delegate-stack-stx', 'delegate-stack-increase', 'delegate-stack-extend') AND o.end_cycle > k.c
	ORDER BY o.stacker, o.block_height DESC, o.microblock_sequence DESC, o.tx_index DESC, o.event_index DESC)
	UNION ALL
	(SELECT DISTINCT ON (stacker) stacker, data->>'signer_key', locked, data->'pox_addr', 'solo'
	FROM ops
	WHERE name IN ('stack-stx', 'stack-extend') AND end_cycle > k.c
	ORDER BY stacker, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC)
)`

// poxSignersSQL lists the signers of the cycle k.c (one row per distinct signer entry, as the
// reference groups them) with their stacker counts; the caller appends its filter, order and
// page.
const poxSignersSQL = poxStackersSQL + `, signers AS (
	SELECT DISTINCT signing_key, signer_address, weight, stacked_amount, weight_percent, stacked_amount_percent
	FROM pox_signers WHERE cycle_number = k.c AND canonical
)
SELECT k.c AS cycle_number, s.*,
	(SELECT count(DISTINCT st.stacker) FROM stackers st WHERE st.stacker_type = 'solo' AND st.signer_key = '0x' || encode(s.signing_key, 'hex')) AS solo_stacker_count,
	(SELECT count(DISTINCT st.stacker) FROM stackers st WHERE st.stacker_type = 'pooled' AND st.signer_key = '0x' || encode(s.signing_key, 'hex')) AS pooled_stacker_count
FROM signers s`

// PoxPage is a page of a PoX list.
type PoxPage struct{ Limit, Offset int }

// PoxSignerKey names a signer of a cycle: the cycle and the signing key (raw bytes as a string,
// as loader keys carry them).
type PoxSignerKey struct {
	Cycle int32
	Key   string
}

// PoxCount is the length of one cycle's signer list, or of one signer's stacker list.
type PoxCount struct {
	CycleNumber int32  `bun:"cycle_number"`
	SigningKey  []byte `bun:"signing_key"`
	N           int32  `bun:"n"`
}

// PoxSignersOf returns a page of the signers of each cycle's canonical reward set, heaviest
// first, in one statement.
func (s *Store) PoxSignersOf(ctx context.Context, cycles []int32, p PoxPage) ([]*PoxSigner, error) {
	var rows []*PoxSigner
	err := s.scanPrepared(ctx, `SELECT p.* FROM unnest($1::integer[]) AS k(c) CROSS JOIN LATERAL (`+poxSignersSQL+`
		ORDER BY s.weight DESC, s.stacked_amount DESC, s.signing_key LIMIT $2 OFFSET $3) p`, &rows, intArray(cycles), p.Limit, p.Offset)
	return rows, err
}

// PoxSignerCounts returns the number of signers of each cycle's canonical reward set (cycles
// without signers have no row).
func (s *Store) PoxSignerCounts(ctx context.Context, cycles []int32) ([]*PoxCount, error) {
	var rows []*PoxCount
	err := s.scanPrepared(ctx, `SELECT cycle_number, count(*) AS n FROM (SELECT DISTINCT cycle_number, signing_key, signer_address,
		weight, stacked_amount, weight_percent, stacked_amount_percent FROM pox_signers WHERE cycle_number = ANY($1::integer[]) AND canonical) s
		GROUP BY cycle_number`, &rows, intArray(cycles))
	return rows, err
}

// PoxSignersByKey returns the signers with these signing keys in their cycles' canonical reward
// sets (keys without a signer have no row).
func (s *Store) PoxSignersByKey(ctx context.Context, keys []PoxSignerKey) ([]*PoxSigner, error) {
	var rows []*PoxSigner
	err := s.scanPrepared(ctx, `SELECT p.* FROM unnest($1::integer[], $2::bytea[]) AS k(c, key) CROSS JOIN LATERAL (`+poxSignersSQL+`
		WHERE s.signing_key = k.key LIMIT 1) p`, &rows, signerCycles(keys), byteaArrayOf(keys, func(k PoxSignerKey) string { return k.Key }))
	return rows, err
}

// PoxStackersOf returns a page of the stackers behind each signer in its cycle, largest lock
// first, in one statement.
func (s *Store) PoxStackersOf(ctx context.Context, keys []PoxSignerKey, p PoxPage) ([]*PoxStacker, error) {
	var rows []*PoxStacker
	err := s.scanPrepared(ctx, `SELECT p.* FROM unnest($1::integer[], $2::bytea[]) AS k(c, key) CROSS JOIN LATERAL (`+poxStackersSQL+`
		SELECT k.c AS cycle_number, k.key AS signing_key, stacker, locked, pox_addr, stacker_type FROM stackers
		WHERE signer_key = '0x' || encode(k.key, 'hex') ORDER BY locked DESC, stacker LIMIT $3 OFFSET $4) p`,
		&rows, signerCycles(keys), byteaArrayOf(keys, func(k PoxSignerKey) string { return k.Key }), p.Limit, p.Offset)
	return rows, err
}

// PoxStackerCounts returns the number of stackers behind each signer in its cycle.
func (s *Store) PoxStackerCounts(ctx context.Context, keys []PoxSignerKey) ([]*PoxCount, error) {
	var rows []*PoxCount
	err := s.scanPrepared(ctx, `SELECT k.c AS cycle_number, k.key AS signing_key, p.n FROM unnest($1::integer[], $2::bytea[]) AS k(c, key)
		CROSS JOIN LATERAL (`+poxStackersSQL+` SELECT count(*) AS n FROM stackers WHERE signer_key = '0x' || encode(k.key, 'hex')) p`,
		&rows, signerCycles(keys), byteaArrayOf(keys, func(k PoxSignerKey) string { return k.Key }))
	return rows, err
}

func signerCycles(keys []PoxSignerKey) string {
	cycles := make([]int32, len(keys))
	for i, k := range keys {
		cycles[i] = k.Cycle
	}
	return intArray(cycles)
}

// intArray renders integers as the text of an integer[] parameter.
func intArray(vs []int32) string {
	b := []byte{'{'}
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return string(append(b, '}'))
}
