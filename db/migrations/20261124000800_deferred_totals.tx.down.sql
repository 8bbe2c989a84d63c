ALTER TABLE chain_tip DROP COLUMN IF EXISTS totals_deferred;
