package db

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
)

// DigestPart is one section of the canonical-state digest.
type DigestPart struct {
	Name string
	Rows int64
	Hash string // hex SHA-256 of the section's rows in their fixed order
}

// digestQueries select each section of the canonical chain state: chain data only (no receive
// times or other traces of how and when it was ingested), in an order that depends on the data
// alone, so that two databases holding the same chain give the same digest.
var digestQueries = []struct{ name, query string }{
	{"tip", `SELECT block_height, block_hash, index_block_hash, burn_block_height FROM chain_tip`},
	{"blocks", `SELECT index_block_hash, block_hash, block_height, parent_index_block_hash, parent_microblock_hash,
		parent_microblock_sequence, burn_block_hash, burn_block_height, burn_block_time, block_time, miner_txid, tx_count
		FROM blocks WHERE canonical ORDER BY block_height, index_block_hash`},
	{"microblocks", `SELECT microblock_hash, microblock_sequence, microblock_parent_hash, index_block_hash, block_height
		FROM microblocks WHERE canonical AND microblock_canonical ORDER BY block_height, microblock_sequence, microblock_hash`},
	{"transactions", `SELECT tx_id, index_block_hash, microblock_hash, tx_index, raw_tx, status, raw_result, vm_error,
		block_height, microblock_sequence, nonce, fee_rate, sender_address, event_count
		FROM txs WHERE canonical AND microblock_canonical ORDER BY block_height, microblock_sequence, tx_index, tx_id`},
	{"stx_events", `SELECT tx_id, event_index, asset_event_type_id, sender, recipient, amount, memo
		FROM stx_events WHERE canonical AND microblock_canonical ORDER BY block_height, microblock_sequence, tx_index, event_index`},
	{"ft_events", `SELECT tx_id, event_index, asset_event_type_id, asset_identifier, sender, recipient, amount
		FROM ft_events WHERE canonical AND microblock_canonical ORDER BY block_height, microblock_sequence, tx_index, event_index`},
	{"nft_events", `SELECT tx_id, event_index, asset_event_type_id, asset_identifier, sender, recipient, value
		FROM nft_events WHERE canonical AND microblock_canonical ORDER BY block_height, microblock_sequence, tx_index, event_index`},
	{"contract_logs", `SELECT tx_id, event_index, contract_identifier, topic, value
		FROM contract_logs WHERE canonical AND microblock_canonical ORDER BY block_height, microblock_sequence, tx_index, event_index`},
	{"stx_lock_events", `SELECT tx_id, event_index, locked_amount, unlock_height, locked_address, contract_name
		FROM stx_lock_events WHERE canonical AND microblock_canonical ORDER BY block_height, microblock_sequence, tx_index, event_index`},
	{"miner_rewards", `SELECT index_block_hash, from_index_block_hash, recipient, mature_block_height, coinbase_amount,
		tx_fees_anchored, tx_fees_streamed_confirmed, tx_fees_streamed_produced
		FROM miner_rewards WHERE canonical ORDER BY mature_block_height, index_block_hash, recipient, from_index_block_hash`},
	{"pox_cycles", `SELECT cycle_number, index_block_hash, block_height, total_weight, total_stacked_amount, total_signers
		FROM pox_cycles WHERE canonical ORDER BY cycle_number, index_block_hash`},
	{"pox_signers", `SELECT cycle_number, index_block_hash, position, signing_key, signer_address, weight, stacked_amount,
		weight_percent, stacked_amount_percent FROM pox_signers WHERE canonical ORDER BY cycle_number, index_block_hash, position`},
	{"balances", `SELECT principal, total_received, total_sent, total_fees_sent, total_miner_rewards_received, tx_count
		FROM principal_stx_totals
		WHERE total_received <> 0 OR total_sent <> 0 OR total_fees_sent <> 0 OR total_miner_rewards_received <> 0 OR tx_count <> 0
		ORDER BY principal COLLATE "C"`},
}

// Digest hashes the canonical chain state (tip, blocks, microblocks, transactions, events, miner
// rewards, announced reward sets and STX balances) section by section, in one repeatable-read snapshot. It returns the
// sections and a hash over all of them: equal digests mean equal canonical state.
func (s *Store) Digest(ctx context.Context) (parts []DigestPart, total string, err error) {
	tx, err := s.DB.DB.BeginTx(ctx, &sqlTxReadOnlySnapshot)
	if err != nil {
		return nil, "", err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	all := sha256.New()
	for _, q := range digestQueries {
		rows, err := tx.QueryContext(ctx, "SELECT r::text FROM ("+q.query+") r")
		if err != nil {
			return nil, "", fmt.Errorf("digest %s: %w", q.name, err)
		}
		h := sha256.New()
		var n int64
		var line []byte
		for rows.Next() {
			if err := rows.Scan(&line); err != nil {
				rows.Close()
				return nil, "", fmt.Errorf("digest %s: %w", q.name, err)
			}
			h.Write(line)
			h.Write([]byte{'\n'})
			n++
		}
		if err := rows.Err(); err != nil {
			return nil, "", fmt.Errorf("digest %s: %w", q.name, err)
		}
		rows.Close()
		p := DigestPart{Name: q.name, Rows: n, Hash: hex.EncodeToString(h.Sum(nil))}
		fmt.Fprintf(all, "%s %d %s\n", p.Name, p.Rows, p.Hash)
		parts = append(parts, p)
	}
	return parts, hex.EncodeToString(all.Sum(nil)), nil
}

var sqlTxReadOnlySnapshot = sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
