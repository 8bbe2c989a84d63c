DROP INDEX reward_slot_holders_height_idx;
--bun:split

DROP INDEX burnchain_rewards_height_idx;
