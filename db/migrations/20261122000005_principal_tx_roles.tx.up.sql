-- The part a principal plays in each of its transactions, as bits (db/principal_roles.go):
-- 1 sender, 2 sponsor, 4 token-transfer recipient, 8 called contract, 16 deployed contract,
-- 32 sender or recipient of an STX/FT/NFT event, 64 locked by an stx_lock event.
-- transactions_with_transfers lists the transactions where the principal played one of the
-- roles in 61 (all but sponsor and stx_lock), as the reference API does.
ALTER TABLE principal_txs ADD COLUMN roles smallint NOT NULL DEFAULT 0;
--bun:split

UPDATE principal_txs p SET roles =
    (CASE WHEN t.sender_address = p.principal THEN 1 ELSE 0 END)
  | (CASE WHEN t.sponsor_address = p.principal THEN 2 ELSE 0 END)
  | (CASE WHEN t.token_transfer_recipient_address = p.principal THEN 4 ELSE 0 END)
  | (CASE WHEN t.contract_call_contract_id = p.principal THEN 8 ELSE 0 END)
  | (CASE WHEN t.smart_contract_contract_id = p.principal THEN 16 ELSE 0 END)
  | (CASE WHEN EXISTS (SELECT 1 FROM stx_events e WHERE e.tx_id = p.tx_id AND e.index_block_hash = p.index_block_hash
            AND e.microblock_hash = p.microblock_hash AND p.principal IN (e.sender, e.recipient))
        OR EXISTS (SELECT 1 FROM ft_events e WHERE e.tx_id = p.tx_id AND e.index_block_hash = p.index_block_hash
            AND e.microblock_hash = p.microblock_hash AND p.principal IN (e.sender, e.recipient))
        OR EXISTS (SELECT 1 FROM nft_events e WHERE e.tx_id = p.tx_id AND e.index_block_hash = p.index_block_hash
            AND e.microblock_hash = p.microblock_hash AND p.principal IN (e.sender, e.recipient)) THEN 32 ELSE 0 END)
  | (CASE WHEN EXISTS (SELECT 1 FROM stx_lock_events e WHERE e.tx_id = p.tx_id AND e.index_block_hash = p.index_block_hash
            AND e.microblock_hash = p.microblock_hash AND e.locked_address = p.principal) THEN 64 ELSE 0 END)
FROM txs t
WHERE t.tx_id = p.tx_id AND t.index_block_hash = p.index_block_hash AND t.microblock_hash = p.microblock_hash;
--bun:split

-- A transfers page walks this index: its cost is the page, not the principal's history.
CREATE INDEX principal_txs_transfers_idx ON principal_txs (principal, block_height DESC, microblock_sequence DESC, tx_index DESC)
    WHERE canonical AND microblock_canonical AND roles & 61 <> 0;
--bun:split

-- tx_count now counts the transactions of transactions_with_transfers (roles & 61 <> 0).
UPDATE principal_stx_totals s SET tx_count = coalesce((SELECT count(*) FROM principal_txs p
    WHERE p.principal = s.principal AND p.canonical AND p.microblock_canonical AND p.index_block_hash <> ''
    AND p.roles & 61 <> 0), 0);
--bun:split

-- The tx ids of a page of blocks (the REST block list), newest first, from the index alone.
CREATE INDEX txs_block_ids_idx ON txs (index_block_hash, microblock_sequence DESC, tx_index DESC) INCLUDE (tx_id)
    WHERE canonical AND microblock_canonical;
--bun:split

-- pox_events hold the state after each operation, as the reference stores it (db/pox_lock.go:
-- the node prints the event before the operation runs). The down migration keeps them so.
UPDATE pox_events SET
    locked = CASE
        WHEN name IN ('stack-stx', 'delegate-stack-stx') AND data->>'lock_amount' IS NOT NULL THEN (data->>'lock_amount')::numeric
        WHEN name IN ('stack-increase', 'delegate-stack-increase') AND data->>'increase_by' IS NOT NULL THEN locked + (data->>'increase_by')::numeric
        ELSE locked END,
    balance = CASE
        WHEN name IN ('stack-stx', 'delegate-stack-stx') AND data->>'lock_amount' IS NOT NULL THEN balance - (data->>'lock_amount')::numeric
        WHEN name IN ('stack-increase', 'delegate-stack-increase') AND data->>'increase_by' IS NOT NULL THEN balance - (data->>'increase_by')::numeric
        WHEN name = 'handle-unlock' THEN balance + locked
        ELSE balance END,
    burnchain_unlock_height = CASE
        WHEN name IN ('stack-stx', 'delegate-stack-stx', 'stack-extend', 'delegate-stack-extend', 'delegate-stx')
            AND data->>'unlock_burn_height' IS NOT NULL THEN (data->>'unlock_burn_height')::integer
        ELSE burnchain_unlock_height END;
