DROP INDEX IF EXISTS txs_block_ids_idx;
--bun:split

DROP INDEX IF EXISTS principal_txs_transfers_idx;
--bun:split

ALTER TABLE principal_txs DROP COLUMN IF EXISTS roles;
--bun:split

UPDATE principal_stx_totals s SET tx_count = coalesce((SELECT count(*) FROM principal_txs p
    WHERE p.principal = s.principal AND p.canonical AND p.microblock_canonical AND p.index_block_hash <> ''), 0);
