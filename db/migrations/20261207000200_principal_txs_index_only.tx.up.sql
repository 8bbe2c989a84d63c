-- A principal's newest transactions are read from the index alone: its ids are included, so an
-- account's page of transactions by cursor and its balance's latest transaction visit no heap
-- page of principal_txs, whose rows for one principal lie scattered over the blocks they were
-- appended in (a page of twenty touched twenty heap pages).
DROP INDEX principal_txs_order_idx;
--bun:split

CREATE INDEX principal_txs_order_idx ON principal_txs (principal, block_height DESC, microblock_sequence DESC, tx_index DESC)
    INCLUDE (tx_id, index_block_hash, microblock_hash) WHERE canonical AND microblock_canonical;
