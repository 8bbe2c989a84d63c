-- A principal's balance at a height is read from the index alone: the checkpoints' primary key
-- includes the totals, so a balance at a height, a transactions page up to one and each point of
-- a balance history visit no heap page. A chain followed block by block appends one principal's
-- checkpoints over as many pages as it has (a history of 200 points touched 200 of them).
ALTER TABLE principal_stx_checkpoints DROP CONSTRAINT principal_stx_checkpoints_pkey;
--bun:split

ALTER TABLE principal_stx_checkpoints ADD CONSTRAINT principal_stx_checkpoints_pkey PRIMARY KEY (principal, block_height)
    INCLUDE (total_received, total_sent, total_fees_sent, total_miner_rewards_received, tx_count, tx_count_all);
