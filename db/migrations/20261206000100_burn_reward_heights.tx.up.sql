-- A burn block orphans the rewards and slot holders of the blocks at or above its height that it
-- replaces: indexed by height, that update reads those few rows instead of the whole table.
CREATE INDEX burnchain_rewards_height_idx ON burnchain_rewards (burn_block_height);
--bun:split

CREATE INDEX reward_slot_holders_height_idx ON reward_slot_holders (burn_block_height);
