-- A payout is recorded, signed, before it is broadcast: a retry of the same request (its
-- request id) gets the same transaction instead of a second payout. A reservation that has no
-- transaction yet counts against the limits only while its lease runs, so a process that died
-- before broadcasting does not hold a recipient's quota.
ALTER TABLE faucet_requests ADD COLUMN request_id text;
--bun:split
ALTER TABLE faucet_requests ADD COLUMN tx_raw text NOT NULL DEFAULT '';
--bun:split
ALTER TABLE faucet_requests ADD COLUMN lease_until timestamptz;
--bun:split
CREATE UNIQUE INDEX faucet_requests_request_id_idx ON faucet_requests (currency, request_id) WHERE request_id IS NOT NULL;
