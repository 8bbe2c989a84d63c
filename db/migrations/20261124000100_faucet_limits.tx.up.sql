-- Stacking payouts have their own, longer window; client addresses have their own limit.
ALTER TABLE faucet_requests ADD COLUMN stacking boolean NOT NULL DEFAULT false;
--bun:split
CREATE INDEX faucet_requests_ip_idx ON faucet_requests (ip, currency, occurred_at DESC) WHERE ip <> '';
--bun:split

-- The next nonce each STX faucet key may use, so that several API processes sharing one key
-- never hand out the same nonce twice.
CREATE TABLE faucet_stx_nonces (
    sender     text   PRIMARY KEY,
    next_nonce bigint NOT NULL DEFAULT 0
);
