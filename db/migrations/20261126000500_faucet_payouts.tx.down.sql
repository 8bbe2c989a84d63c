DROP INDEX faucet_requests_request_id_idx;
--bun:split
ALTER TABLE faucet_requests DROP COLUMN lease_until;
--bun:split
ALTER TABLE faucet_requests DROP COLUMN tx_raw;
--bun:split
ALTER TABLE faucet_requests DROP COLUMN request_id;
