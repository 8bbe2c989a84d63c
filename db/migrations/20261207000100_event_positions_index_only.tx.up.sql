-- A page of a principal's events reads its positions from the index alone. The positions of a
-- chain followed block by block are appended in the blocks' order, so a principal's twenty
-- newest lie on as many heap pages, each a read of its own once the table outgrows the cache;
-- the index keeps a principal's positions together, and with the columns the page reads
-- included it needs no heap page at all (as principal_tx_positions' indexes do). The same for
-- the contract-log positions a contract's events page reads.
ALTER TABLE principal_event_positions DROP CONSTRAINT principal_event_positions_pkey;
--bun:split

ALTER TABLE principal_event_positions ADD CONSTRAINT principal_event_positions_pkey PRIMARY KEY (principal, seq)
    INCLUDE (kind, tx_id, index_block_hash, microblock_hash, event_index);
--bun:split

DROP INDEX principal_event_positions_logs_idx;
--bun:split

CREATE INDEX principal_event_positions_logs_idx ON principal_event_positions (principal, log_seq)
    INCLUDE (tx_id, index_block_hash, microblock_hash, event_index) WHERE log_seq IS NOT NULL;
