DELETE FROM miner_rewards WHERE reward_index > 0 AND EXISTS (SELECT 1 FROM miner_rewards o
    WHERE o.index_block_hash = miner_rewards.index_block_hash AND o.recipient = miner_rewards.recipient
    AND o.from_index_block_hash = miner_rewards.from_index_block_hash AND o.reward_index < miner_rewards.reward_index);
--bun:split

ALTER TABLE miner_rewards DROP CONSTRAINT miner_rewards_pkey;
--bun:split

ALTER TABLE miner_rewards ADD PRIMARY KEY (index_block_hash, recipient, from_index_block_hash);
--bun:split

ALTER TABLE miner_rewards DROP COLUMN reward_index;
