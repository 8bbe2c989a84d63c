-- The reward sets the node announces with a block (/new_block reward_set and cycle_number): one
-- row per cycle and announcing block, with the set's totals. Rows follow their block's canonical
-- flag.
CREATE TABLE pox_cycles (
    cycle_number         integer NOT NULL,
    index_block_hash     bytea   NOT NULL,
    block_height         integer NOT NULL,
    canonical            boolean NOT NULL,
    total_weight         integer NOT NULL,
    total_stacked_amount numeric NOT NULL,
    total_signers        integer NOT NULL,
    PRIMARY KEY (cycle_number, index_block_hash)
);
CREATE INDEX pox_cycles_block_idx ON pox_cycles (index_block_hash, canonical);
CREATE INDEX pox_cycles_canonical_idx ON pox_cycles (cycle_number DESC) WHERE canonical;
--bun:split

-- The signers of an announced reward set, numbered by their position in the set. The shares are
-- fixed when the set is stored (weight and stacked amount over the set's totals, in percent).
CREATE TABLE pox_signers (
    index_block_hash       bytea            NOT NULL,
    cycle_number           integer          NOT NULL,
    position               integer          NOT NULL,
    block_height           integer          NOT NULL,
    canonical              boolean          NOT NULL,
    signing_key            bytea            NOT NULL,
    signer_address         text             NOT NULL,
    weight                 integer          NOT NULL,
    stacked_amount         numeric          NOT NULL,
    weight_percent         double precision NOT NULL,
    stacked_amount_percent double precision NOT NULL,
    PRIMARY KEY (index_block_hash, cycle_number, position)
);
CREATE INDEX pox_signers_block_idx ON pox_signers (index_block_hash, canonical);
CREATE INDEX pox_signers_cycle_idx ON pox_signers (cycle_number, weight DESC, stacked_amount DESC, signing_key) WHERE canonical;
--bun:split

-- The pox-4 stacking operations that place a stacker (or a pool's commit) in a range of reward
-- cycles, by the first cycle of the range: a cycle's stackers are found among the operations
-- that started at most 12 cycles before it (pox-4 locks for at most 12 cycles).
CREATE INDEX pox_events_pox4_cycle_idx ON pox_events (((data->>'start_cycle_id')::numeric))
    WHERE pox_version = 4 AND canonical AND microblock_canonical
    AND name IN ('stack-stx', 'stack-extend', 'delegate-stack-stx', 'delegate-stack-increase', 'delegate-stack-extend',
        'stack-aggregation-commit', 'stack-aggregation-commit-indexed');
