-- BRC-20 ingestion state: ordering keys and inscription facts on operations, holder counts on
-- tokens, balances at the end of each block, and the blocks applied so far (for replays and
-- rollbacks). Amounts stay integers scaled by 10^decimals of the token.
ALTER TABLE brc20_tokens ADD COLUMN holders bigint NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE brc20_operations
    ADD COLUMN event_index        integer NOT NULL DEFAULT 0,
    ADD COLUMN inscription_number bigint  NOT NULL DEFAULT 0,
    ADD COLUMN ordinal_number     bigint  NOT NULL DEFAULT 0;
--bun:split
CREATE UNIQUE INDEX brc20_operations_order_idx ON brc20_operations (block_height DESC, event_index DESC);
CREATE INDEX brc20_operations_ticker_order_idx ON brc20_operations (ticker, block_height DESC, event_index DESC);
CREATE INDEX brc20_operations_address_idx ON brc20_operations (address, block_height DESC, event_index DESC);
CREATE INDEX brc20_operations_to_address_idx ON brc20_operations (to_address, block_height DESC, event_index DESC) WHERE to_address IS NOT NULL;
--bun:split
ALTER TABLE brc20_transferables
    ADD COLUMN inscription_number bigint  NOT NULL DEFAULT 0,
    ADD COLUMN ordinal_number     bigint  NOT NULL DEFAULT 0,
    ADD COLUMN tx_index           integer NOT NULL DEFAULT 0;
CREATE INDEX brc20_transferables_address_idx ON brc20_transferables (address, block_height DESC, tx_index DESC);
CREATE INDEX brc20_transferables_sat_idx ON brc20_transferables (ordinal_number);
--bun:split
-- Balance of every (ticker, address) whose balance changed in a block, as it stood at the end of
-- that block: the balance at height H is the row with the greatest block_height <= H.
CREATE TABLE brc20_balance_history (
    ticker        text    NOT NULL,
    address       text    NOT NULL,
    block_height  integer NOT NULL,
    avail_balance numeric NOT NULL,
    trans_balance numeric NOT NULL,
    total_balance numeric NOT NULL,
    PRIMARY KEY (ticker, address, block_height)
);
CREATE INDEX brc20_balance_history_address_idx ON brc20_balance_history (address, block_height DESC);
CREATE INDEX brc20_balance_history_block_idx ON brc20_balance_history (block_height);
--bun:split
-- Bitcoin blocks whose inscription activity has been applied (one row per height).
CREATE TABLE brc20_blocks (
    block_height integer PRIMARY KEY,
    block_hash   text    NOT NULL,
    timestamp    bigint  NOT NULL
);
