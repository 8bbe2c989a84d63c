-- Faucet requests: the rate limiter counts recent successful requests per address and currency.
CREATE TABLE faucet_requests (
    id          bigserial PRIMARY KEY,
    currency    text      NOT NULL,
    address     text      NOT NULL,
    ip          text      NOT NULL DEFAULT '',
    tx_id       text      NOT NULL DEFAULT '',
    occurred_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX faucet_requests_address_idx ON faucet_requests (address, currency, occurred_at DESC);
--bun:split

-- BRC-20 state derived from inscription payloads. Amounts are integers scaled by 10^decimals.
CREATE TABLE brc20_tokens (
    ticker             text     PRIMARY KEY, -- lower-case deploy tick
    display_ticker     text     NOT NULL,
    inscription_id     text     NOT NULL,
    inscription_number bigint   NOT NULL,
    block_height       integer  NOT NULL,
    block_hash         text     NOT NULL,
    tx_id              text     NOT NULL,
    tx_index           integer  NOT NULL,
    address            text     NOT NULL,
    max_supply         numeric  NOT NULL,
    mint_limit         numeric  NOT NULL,
    decimals           smallint NOT NULL,
    self_mint          boolean  NOT NULL DEFAULT false,
    minted_supply      numeric  NOT NULL DEFAULT 0,
    tx_count           bigint   NOT NULL DEFAULT 1,
    deploy_timestamp   bigint   NOT NULL
);
CREATE INDEX brc20_tokens_order_idx ON brc20_tokens (block_height DESC, tx_index DESC);
--bun:split
CREATE TABLE brc20_balances (
    ticker        text    NOT NULL,
    address       text    NOT NULL,
    avail_balance numeric NOT NULL DEFAULT 0,
    trans_balance numeric NOT NULL DEFAULT 0,
    total_balance numeric NOT NULL DEFAULT 0,
    PRIMARY KEY (ticker, address)
);
CREATE INDEX brc20_balances_holders_idx ON brc20_balances (ticker, total_balance DESC) WHERE total_balance > 0;
CREATE INDEX brc20_balances_address_idx ON brc20_balances (address);
--bun:split
CREATE TABLE brc20_operations (
    inscription_id text     NOT NULL,
    operation      text     NOT NULL, -- deploy | mint | transfer | transfer_send | transfer_receive
    ticker         text     NOT NULL,
    block_height   integer  NOT NULL,
    block_hash     text     NOT NULL,
    tx_id          text     NOT NULL,
    tx_index       integer  NOT NULL,
    location       text     NOT NULL,
    address        text     NOT NULL,
    to_address     text,
    amount         numeric  NOT NULL DEFAULT 0,
    timestamp      bigint   NOT NULL,
    PRIMARY KEY (inscription_id, operation)
);
CREATE INDEX brc20_operations_ticker_idx ON brc20_operations (ticker, block_height DESC, tx_index DESC);
CREATE INDEX brc20_operations_block_idx ON brc20_operations (block_height);
-- Transfer inscriptions not yet sent: the amount they hold and who inscribed them.
CREATE TABLE brc20_transferables (
    inscription_id text    PRIMARY KEY,
    ticker         text    NOT NULL,
    address        text    NOT NULL,
    amount         numeric NOT NULL,
    block_height   integer NOT NULL
);
