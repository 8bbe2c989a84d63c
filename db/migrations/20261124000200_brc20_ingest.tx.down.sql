DROP TABLE IF EXISTS brc20_blocks, brc20_balance_history;
DROP INDEX IF EXISTS brc20_transferables_sat_idx, brc20_transferables_address_idx,
    brc20_operations_to_address_idx, brc20_operations_address_idx, brc20_operations_ticker_order_idx,
    brc20_operations_order_idx;
ALTER TABLE brc20_transferables DROP COLUMN IF EXISTS tx_index, DROP COLUMN IF EXISTS ordinal_number,
    DROP COLUMN IF EXISTS inscription_number;
ALTER TABLE brc20_operations DROP COLUMN IF EXISTS ordinal_number, DROP COLUMN IF EXISTS inscription_number,
    DROP COLUMN IF EXISTS event_index;
ALTER TABLE brc20_tokens DROP COLUMN IF EXISTS holders;
