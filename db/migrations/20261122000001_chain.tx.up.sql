-- Chain data as the stacks-node event observer delivers it.
-- Conventions: hashes and ids are bytea (rendered 0x… at the edge); an empty bytea means "none"
-- (e.g. microblock_hash of an anchored tx). u128/u64 amounts are numeric, heights integer.
-- Every row that belongs to a block carries index_block_hash + canonical (+ microblock_canonical)
-- so that a fork flips flags instead of deleting rows. Unanchored microblock rows are stored at
-- block_height = tip + 1 with an empty index_block_hash until an anchor block accepts them.

-- Single-row state.
CREATE TABLE chain_tip (
    id                  boolean PRIMARY KEY DEFAULT true CHECK (id),
    block_height        integer NOT NULL DEFAULT 0,
    block_hash          bytea   NOT NULL DEFAULT '',
    index_block_hash    bytea   NOT NULL DEFAULT '',
    burn_block_height   integer NOT NULL DEFAULT 0,
    microblock_hash     bytea   NOT NULL DEFAULT '',
    microblock_sequence integer,
    mempool_updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO chain_tip DEFAULT VALUES;
--bun:split
CREATE TABLE pox_state (
    id                   boolean PRIMARY KEY DEFAULT true CHECK (id),
    pox_v1_unlock_height integer NOT NULL DEFAULT 0,
    pox_v2_unlock_height integer NOT NULL DEFAULT 0,
    pox_v3_unlock_height integer NOT NULL DEFAULT 0,
    pox_v4_unlock_height integer NOT NULL DEFAULT 0
);
INSERT INTO pox_state DEFAULT VALUES;
--bun:split

CREATE TABLE burn_blocks (
    burn_block_hash   bytea   PRIMARY KEY,
    burn_block_height integer NOT NULL,
    burn_amount       numeric NOT NULL DEFAULT 0,
    consensus_hash    bytea,
    parent_burn_block_hash bytea,
    canonical         boolean NOT NULL DEFAULT true
);
CREATE INDEX burn_blocks_height_idx ON burn_blocks (burn_block_height DESC);
--bun:split
CREATE TABLE burnchain_rewards (
    burn_block_hash   bytea   NOT NULL,
    burn_block_height integer NOT NULL,
    reward_index      integer NOT NULL,
    recipient         text    NOT NULL,
    amount            numeric NOT NULL,
    canonical         boolean NOT NULL DEFAULT true,
    PRIMARY KEY (burn_block_hash, reward_index)
);
CREATE INDEX burnchain_rewards_recipient_idx ON burnchain_rewards (recipient);
--bun:split
CREATE TABLE reward_slot_holders (
    burn_block_hash   bytea   NOT NULL,
    burn_block_height integer NOT NULL,
    slot_index        integer NOT NULL,
    address           text    NOT NULL,
    canonical         boolean NOT NULL DEFAULT true,
    PRIMARY KEY (burn_block_hash, slot_index)
);
--bun:split

CREATE TABLE blocks (
    index_block_hash           bytea   PRIMARY KEY,
    block_hash                 bytea   NOT NULL,
    block_height               integer NOT NULL,
    parent_index_block_hash    bytea   NOT NULL,
    parent_block_hash          bytea   NOT NULL,
    parent_microblock_hash     bytea   NOT NULL,
    parent_microblock_sequence integer NOT NULL,
    burn_block_hash            bytea   NOT NULL,
    burn_block_height          integer NOT NULL,
    burn_block_time            bigint  NOT NULL,
    parent_burn_block_hash     bytea   NOT NULL DEFAULT '',
    parent_burn_block_height   integer NOT NULL DEFAULT 0,
    parent_burn_block_time     bigint  NOT NULL DEFAULT 0,
    block_time                 bigint  NOT NULL,
    miner_txid                 bytea   NOT NULL,
    tenure_height              integer,
    signer_bitvec              text,
    signer_signatures          bytea[],
    consensus_hash             bytea,
    tx_total_size              integer NOT NULL DEFAULT 0,
    tx_count                   integer NOT NULL DEFAULT 0,
    execution_cost_read_count   bigint NOT NULL DEFAULT 0,
    execution_cost_read_length  bigint NOT NULL DEFAULT 0,
    execution_cost_runtime      bigint NOT NULL DEFAULT 0,
    execution_cost_write_count  bigint NOT NULL DEFAULT 0,
    execution_cost_write_length bigint NOT NULL DEFAULT 0,
    canonical                  boolean NOT NULL
);
CREATE INDEX blocks_block_hash_idx ON blocks (block_hash);
CREATE INDEX blocks_burn_block_hash_idx ON blocks (burn_block_hash, canonical DESC, block_height DESC);
CREATE INDEX blocks_height_idx ON blocks (block_height DESC, canonical);
CREATE INDEX blocks_canonical_height_idx ON blocks (block_height DESC) WHERE canonical;
CREATE INDEX blocks_parent_idx ON blocks (parent_index_block_hash);
--bun:split

CREATE TABLE microblocks (
    microblock_hash         bytea   NOT NULL,
    microblock_sequence     integer NOT NULL,
    microblock_parent_hash  bytea   NOT NULL,
    parent_index_block_hash bytea   NOT NULL,
    -- The anchor block that accepted (or orphaned) this microblock; empty while unconfirmed.
    index_block_hash        bytea   NOT NULL DEFAULT '',
    block_hash              bytea   NOT NULL DEFAULT '',
    block_height            integer NOT NULL,
    parent_block_height     integer NOT NULL,
    parent_block_hash       bytea   NOT NULL,
    parent_burn_block_hash  bytea   NOT NULL,
    parent_burn_block_height integer NOT NULL,
    parent_burn_block_time  bigint  NOT NULL,
    receive_time            timestamptz NOT NULL DEFAULT now(),
    canonical               boolean NOT NULL,
    microblock_canonical    boolean NOT NULL,
    PRIMARY KEY (microblock_hash, index_block_hash)
);
CREATE INDEX microblocks_parent_idx ON microblocks (parent_index_block_hash, microblock_sequence);
CREATE INDEX microblocks_index_block_hash_idx ON microblocks (index_block_hash);
--bun:split

CREATE TABLE txs (
    tx_id                   bytea    NOT NULL,
    index_block_hash        bytea    NOT NULL,
    microblock_hash         bytea    NOT NULL DEFAULT '',
    raw_tx                  bytea    NOT NULL,
    tx_index                integer  NOT NULL,
    type_id                 smallint NOT NULL,
    status                  smallint NOT NULL,
    raw_result              bytea    NOT NULL,
    vm_error                text,
    canonical               boolean  NOT NULL,
    microblock_canonical    boolean  NOT NULL,
    microblock_sequence     integer  NOT NULL,
    block_hash              bytea    NOT NULL,
    block_height            integer  NOT NULL,
    block_time              bigint   NOT NULL DEFAULT 0,
    parent_index_block_hash bytea    NOT NULL,
    parent_block_hash       bytea    NOT NULL,
    burn_block_height       integer  NOT NULL,
    burn_block_time         bigint   NOT NULL,
    parent_burn_block_time  bigint   NOT NULL,
    nonce                   numeric  NOT NULL,
    fee_rate                numeric  NOT NULL,
    sender_address          text     NOT NULL,
    sponsored               boolean  NOT NULL,
    sponsor_address         text,
    sponsor_nonce           numeric,
    anchor_mode             smallint NOT NULL,
    post_condition_mode     smallint NOT NULL,
    token_transfer_recipient_address text,
    token_transfer_amount   numeric,
    smart_contract_contract_id text,
    contract_call_contract_id  text,
    contract_call_function_name text,
    coinbase_alt_recipient  text,
    event_count             integer  NOT NULL DEFAULT 0,
    execution_cost_read_count   bigint NOT NULL DEFAULT 0,
    execution_cost_read_length  bigint NOT NULL DEFAULT 0,
    execution_cost_runtime      bigint NOT NULL DEFAULT 0,
    execution_cost_write_count  bigint NOT NULL DEFAULT 0,
    execution_cost_write_length bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tx_id, index_block_hash, microblock_hash)
);
CREATE INDEX txs_block_idx ON txs (index_block_hash, canonical);
CREATE INDEX txs_microblock_idx ON txs (microblock_hash);
CREATE INDEX txs_order_idx ON txs (block_height DESC, microblock_sequence DESC, tx_index DESC)
    WHERE canonical AND microblock_canonical;
CREATE INDEX txs_sender_idx ON txs (sender_address, nonce) WHERE canonical AND microblock_canonical;
CREATE INDEX txs_sponsor_idx ON txs (sponsor_address, nonce)
    WHERE sponsor_address IS NOT NULL AND canonical AND microblock_canonical;
CREATE INDEX txs_recipient_idx ON txs (token_transfer_recipient_address);
CREATE INDEX txs_contract_call_idx ON txs (contract_call_contract_id);
CREATE INDEX txs_smart_contract_idx ON txs (smart_contract_contract_id);
--bun:split

CREATE TABLE mempool_txs (
    tx_id               bytea    PRIMARY KEY,
    raw_tx              bytea    NOT NULL,
    type_id             smallint NOT NULL,
    status              smallint NOT NULL,
    pruned              boolean  NOT NULL DEFAULT false,
    replaced_by_tx_id   bytea,
    receipt_time        bigint   NOT NULL,
    receipt_block_height integer NOT NULL DEFAULT 0,
    nonce               numeric  NOT NULL,
    fee_rate            numeric  NOT NULL,
    sender_address      text     NOT NULL,
    sponsored           boolean  NOT NULL,
    sponsor_address     text,
    sponsor_nonce       numeric,
    anchor_mode         smallint NOT NULL,
    post_condition_mode smallint NOT NULL,
    token_transfer_recipient_address text,
    token_transfer_amount numeric,
    smart_contract_contract_id text,
    contract_call_contract_id  text,
    contract_call_function_name text
);
CREATE INDEX mempool_txs_sender_idx ON mempool_txs (sender_address, nonce) WHERE NOT pruned;
CREATE INDEX mempool_txs_sponsor_idx ON mempool_txs (sponsor_address, nonce) WHERE NOT pruned;
CREATE INDEX mempool_txs_recipient_idx ON mempool_txs (token_transfer_recipient_address) WHERE NOT pruned;
CREATE INDEX mempool_txs_receipt_idx ON mempool_txs (receipt_time DESC) WHERE NOT pruned;
--bun:split

-- Events: event_index is per transaction (renumbered at ingestion), ordering is
-- (block_height, microblock_sequence, tx_index, event_index).
CREATE TABLE stx_events (
    tx_id               bytea    NOT NULL,
    index_block_hash    bytea    NOT NULL,
    microblock_hash     bytea    NOT NULL DEFAULT '',
    event_index         integer  NOT NULL,
    tx_index            integer  NOT NULL,
    block_height        integer  NOT NULL,
    microblock_sequence integer  NOT NULL,
    canonical           boolean  NOT NULL,
    microblock_canonical boolean NOT NULL,
    asset_event_type_id smallint NOT NULL,
    sender              text,
    recipient           text,
    amount              numeric  NOT NULL,
    memo                bytea,
    PRIMARY KEY (tx_id, index_block_hash, microblock_hash, event_index)
);
CREATE INDEX stx_events_block_idx ON stx_events (index_block_hash, canonical);
CREATE INDEX stx_events_microblock_idx ON stx_events (microblock_hash);
CREATE INDEX stx_events_sender_idx ON stx_events (sender, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC)
    WHERE canonical AND microblock_canonical;
CREATE INDEX stx_events_recipient_idx ON stx_events (recipient, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC)
    WHERE canonical AND microblock_canonical;
--bun:split
CREATE TABLE ft_events (
    tx_id               bytea    NOT NULL,
    index_block_hash    bytea    NOT NULL,
    microblock_hash     bytea    NOT NULL DEFAULT '',
    event_index         integer  NOT NULL,
    tx_index            integer  NOT NULL,
    block_height        integer  NOT NULL,
    microblock_sequence integer  NOT NULL,
    canonical           boolean  NOT NULL,
    microblock_canonical boolean NOT NULL,
    asset_event_type_id smallint NOT NULL,
    asset_identifier    text     NOT NULL,
    sender              text,
    recipient           text,
    amount              numeric  NOT NULL,
    PRIMARY KEY (tx_id, index_block_hash, microblock_hash, event_index)
);
CREATE INDEX ft_events_block_idx ON ft_events (index_block_hash, canonical);
CREATE INDEX ft_events_microblock_idx ON ft_events (microblock_hash);
CREATE INDEX ft_events_sender_idx ON ft_events (sender, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC)
    WHERE canonical AND microblock_canonical;
CREATE INDEX ft_events_recipient_idx ON ft_events (recipient, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC)
    WHERE canonical AND microblock_canonical;
--bun:split
CREATE TABLE nft_events (
    tx_id               bytea    NOT NULL,
    index_block_hash    bytea    NOT NULL,
    microblock_hash     bytea    NOT NULL DEFAULT '',
    event_index         integer  NOT NULL,
    tx_index            integer  NOT NULL,
    block_height        integer  NOT NULL,
    microblock_sequence integer  NOT NULL,
    canonical           boolean  NOT NULL,
    microblock_canonical boolean NOT NULL,
    asset_event_type_id smallint NOT NULL,
    asset_identifier    text     NOT NULL,
    sender              text,
    recipient           text,
    value               bytea    NOT NULL,
    PRIMARY KEY (tx_id, index_block_hash, microblock_hash, event_index)
);
CREATE INDEX nft_events_block_idx ON nft_events (index_block_hash, canonical);
CREATE INDEX nft_events_microblock_idx ON nft_events (microblock_hash);
CREATE INDEX nft_events_sender_idx ON nft_events (sender, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC)
    WHERE canonical AND microblock_canonical;
CREATE INDEX nft_events_recipient_idx ON nft_events (recipient, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC)
    WHERE canonical AND microblock_canonical;
CREATE INDEX nft_events_asset_idx ON nft_events (asset_identifier, value);
--bun:split
CREATE TABLE contract_logs (
    tx_id               bytea    NOT NULL,
    index_block_hash    bytea    NOT NULL,
    microblock_hash     bytea    NOT NULL DEFAULT '',
    event_index         integer  NOT NULL,
    tx_index            integer  NOT NULL,
    block_height        integer  NOT NULL,
    microblock_sequence integer  NOT NULL,
    canonical           boolean  NOT NULL,
    microblock_canonical boolean NOT NULL,
    contract_identifier text     NOT NULL,
    topic               text     NOT NULL,
    value               bytea    NOT NULL,
    PRIMARY KEY (tx_id, index_block_hash, microblock_hash, event_index)
);
CREATE INDEX contract_logs_block_idx ON contract_logs (index_block_hash, canonical);
CREATE INDEX contract_logs_microblock_idx ON contract_logs (microblock_hash);
CREATE INDEX contract_logs_contract_idx ON contract_logs (contract_identifier, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC)
    WHERE canonical AND microblock_canonical;
--bun:split
CREATE TABLE stx_lock_events (
    tx_id               bytea    NOT NULL,
    index_block_hash    bytea    NOT NULL,
    microblock_hash     bytea    NOT NULL DEFAULT '',
    event_index         integer  NOT NULL,
    tx_index            integer  NOT NULL,
    block_height        integer  NOT NULL,
    microblock_sequence integer  NOT NULL,
    canonical           boolean  NOT NULL,
    microblock_canonical boolean NOT NULL,
    locked_amount       numeric  NOT NULL,
    unlock_height       integer  NOT NULL,
    locked_address      text     NOT NULL,
    contract_name       text     NOT NULL,
    PRIMARY KEY (tx_id, index_block_hash, microblock_hash, event_index)
);
CREATE INDEX stx_lock_events_block_idx ON stx_lock_events (index_block_hash, canonical);
CREATE INDEX stx_lock_events_microblock_idx ON stx_lock_events (microblock_hash);
CREATE INDEX stx_lock_events_address_idx ON stx_lock_events (locked_address, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC)
    WHERE canonical AND microblock_canonical;
--bun:split

-- PoX contract print events (pox-2/3/4) decoded into the fields the lock computation needs.
CREATE TABLE pox_events (
    tx_id               bytea    NOT NULL,
    index_block_hash    bytea    NOT NULL,
    microblock_hash     bytea    NOT NULL DEFAULT '',
    event_index         integer  NOT NULL,
    tx_index            integer  NOT NULL,
    block_height        integer  NOT NULL,
    microblock_sequence integer  NOT NULL,
    canonical           boolean  NOT NULL,
    microblock_canonical boolean NOT NULL,
    pox_version         smallint NOT NULL,
    name                text     NOT NULL,
    stacker             text     NOT NULL,
    locked              numeric  NOT NULL,
    balance             numeric  NOT NULL,
    burnchain_unlock_height integer NOT NULL,
    data                jsonb    NOT NULL DEFAULT '{}',
    PRIMARY KEY (tx_id, index_block_hash, microblock_hash, event_index)
);
CREATE INDEX pox_events_block_idx ON pox_events (index_block_hash, canonical);
CREATE INDEX pox_events_stacker_idx ON pox_events (stacker, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC)
    WHERE canonical AND microblock_canonical;
--bun:split

CREATE TABLE miner_rewards (
    index_block_hash       bytea   NOT NULL,
    block_hash             bytea   NOT NULL,
    from_index_block_hash  bytea   NOT NULL,
    mature_block_height    integer NOT NULL,
    canonical              boolean NOT NULL,
    recipient              text    NOT NULL,
    miner_address          text,
    coinbase_amount        numeric NOT NULL,
    tx_fees_anchored       numeric NOT NULL,
    tx_fees_streamed_confirmed numeric NOT NULL,
    tx_fees_streamed_produced  numeric NOT NULL,
    PRIMARY KEY (index_block_hash, recipient, from_index_block_hash)
);
CREATE INDEX miner_rewards_recipient_idx ON miner_rewards (recipient, mature_block_height DESC) WHERE canonical;
--bun:split

CREATE TABLE smart_contracts (
    contract_id         text     NOT NULL,
    tx_id               bytea    NOT NULL,
    index_block_hash    bytea    NOT NULL,
    microblock_hash     bytea    NOT NULL DEFAULT '',
    block_height        integer  NOT NULL,
    canonical           boolean  NOT NULL,
    microblock_canonical boolean NOT NULL,
    clarity_version     smallint,
    source_code         text     NOT NULL,
    abi                 jsonb,
    PRIMARY KEY (contract_id, tx_id, index_block_hash, microblock_hash)
);
CREATE INDEX smart_contracts_block_idx ON smart_contracts (index_block_hash, canonical);
CREATE INDEX smart_contracts_canonical_idx ON smart_contracts (contract_id) WHERE canonical AND microblock_canonical;
--bun:split

-- One row per (principal, tx) the principal took part in (sender, sponsor, recipient, contract,
-- or any asset event): keyset-paginated account histories without scanning every event table.
CREATE TABLE principal_txs (
    principal           text     NOT NULL,
    tx_id               bytea    NOT NULL,
    index_block_hash    bytea    NOT NULL,
    microblock_hash     bytea    NOT NULL DEFAULT '',
    block_height        integer  NOT NULL,
    microblock_sequence integer  NOT NULL,
    tx_index            integer  NOT NULL,
    canonical           boolean  NOT NULL,
    microblock_canonical boolean NOT NULL,
    PRIMARY KEY (principal, tx_id, index_block_hash, microblock_hash)
);
CREATE INDEX principal_txs_order_idx ON principal_txs (principal, block_height DESC, microblock_sequence DESC, tx_index DESC)
    WHERE canonical AND microblock_canonical;
CREATE INDEX principal_txs_block_idx ON principal_txs (index_block_hash, canonical);
--bun:split

-- Running STX totals per principal over canonical, microblock-canonical, anchored data, kept
-- by ingestion (and by fork flips) so a balance read costs one row whatever the history size.
CREATE TABLE principal_stx_totals (
    principal      text    PRIMARY KEY,
    total_received numeric NOT NULL DEFAULT 0,
    total_sent     numeric NOT NULL DEFAULT 0,
    total_fees_sent numeric NOT NULL DEFAULT 0,
    total_miner_rewards_received numeric NOT NULL DEFAULT 0,
    tx_count       bigint  NOT NULL DEFAULT 0
);
--bun:split

-- The raw event-observer log, for export and replay (the reference's TSV format).
CREATE TABLE event_observer_requests (
    id                bigserial   PRIMARY KEY,
    receive_timestamp timestamptz NOT NULL DEFAULT (now() AT TIME ZONE 'utc'),
    event_path        text        NOT NULL,
    payload           jsonb       NOT NULL
);
CREATE INDEX event_observer_requests_path_idx ON event_observer_requests (event_path, receive_timestamp DESC);
--bun:split

CREATE TABLE attachments (
    tx_id            bytea   NOT NULL,
    index_block_hash bytea   NOT NULL,
    attachment_index integer NOT NULL,
    block_height     integer NOT NULL,
    contract_id      text    NOT NULL,
    content_hash     bytea   NOT NULL,
    metadata         bytea   NOT NULL,
    content          bytea   NOT NULL,
    PRIMARY KEY (tx_id, index_block_hash, attachment_index)
);
--bun:split
CREATE TABLE stackerdb_chunks (
    id                bigserial   PRIMARY KEY,
    receive_timestamp timestamptz NOT NULL DEFAULT now(),
    contract_id       text,
    payload           jsonb       NOT NULL
);
--bun:split
CREATE TABLE block_proposal_responses (
    id                bigserial   PRIMARY KEY,
    receive_timestamp timestamptz NOT NULL DEFAULT now(),
    payload           jsonb       NOT NULL
);
