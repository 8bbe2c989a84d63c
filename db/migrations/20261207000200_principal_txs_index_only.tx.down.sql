DROP INDEX principal_txs_order_idx;
--bun:split

CREATE INDEX principal_txs_order_idx ON principal_txs (principal, block_height DESC, microblock_sequence DESC, tx_index DESC)
    WHERE canonical AND microblock_canonical;
