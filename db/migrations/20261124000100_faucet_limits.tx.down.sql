DROP TABLE IF EXISTS faucet_stx_nonces;
--bun:split
DROP INDEX IF EXISTS faucet_requests_ip_idx;
--bun:split
ALTER TABLE faucet_requests DROP COLUMN IF EXISTS stacking;
