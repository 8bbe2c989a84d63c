-- A block can mature several rewards for one recipient from one parent block (the share of the
-- fees of the microblocks it confirmed, and the share of those it produced, come as separate
-- entries); each entry is kept, numbered by its position in the block's list.
ALTER TABLE miner_rewards ADD COLUMN reward_index smallint NOT NULL DEFAULT 0;
--bun:split

ALTER TABLE miner_rewards DROP CONSTRAINT miner_rewards_pkey;
--bun:split

ALTER TABLE miner_rewards ADD PRIMARY KEY (index_block_hash, recipient, from_index_block_hash, reward_index);
