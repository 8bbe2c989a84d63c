DROP INDEX txs_block_idx;
--bun:split
CREATE INDEX txs_block_idx ON txs (index_block_hash, canonical);
