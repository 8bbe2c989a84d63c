DROP INDEX IF EXISTS blocks_canonical_time_idx;
--bun:split
DROP INDEX IF EXISTS blocks_burn_block_height_idx;
--bun:split
DROP INDEX IF EXISTS blocks_tenure_height_idx;
