ALTER TABLE principal_stx_totals DROP COLUMN IF EXISTS tx_count_all;
--bun:split

DROP TABLE IF EXISTS principal_tx_positions;
--bun:split

DROP TABLE IF EXISTS principal_stx_checkpoints;
