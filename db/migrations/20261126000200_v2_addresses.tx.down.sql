DROP INDEX IF EXISTS mempool_txs_fee_idx;
--bun:split

DROP INDEX IF EXISTS mempool_txs_smart_contract_idx;
--bun:split

DROP INDEX IF EXISTS principal_tx_positions_summaries_idx;
--bun:split

ALTER TABLE principal_stx_totals DROP COLUMN IF EXISTS summary_tx_count;
--bun:split

ALTER TABLE principal_tx_positions DROP COLUMN IF EXISTS sseq;
