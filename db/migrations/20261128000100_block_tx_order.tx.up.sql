-- A block's transactions in chain order: a page of them (the first 20 of a block, the v2 list at
-- an offset) reads its rows from the index in order instead of sorting every transaction of
-- the block. Lookups by block alone (ingestion's, when a fork changes what is canonical) use its
-- first column as they did the index it replaces.
DROP INDEX txs_block_idx;
--bun:split
CREATE INDEX txs_block_idx ON txs (index_block_hash, microblock_sequence, tx_index);
