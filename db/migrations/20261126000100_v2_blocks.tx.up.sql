-- Block reads by tenure, by burn block height and over recent times: each reads the few index
-- rows of one tenure, one burn block or one time window.
CREATE INDEX blocks_tenure_height_idx ON blocks (tenure_height, block_height DESC);
--bun:split
CREATE INDEX blocks_burn_block_height_idx ON blocks (burn_block_height DESC, block_height DESC);
--bun:split
CREATE INDEX blocks_canonical_time_idx ON blocks (block_time DESC) WHERE canonical;
