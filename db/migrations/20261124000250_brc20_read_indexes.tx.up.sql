-- Keyset orders of the BRC-20 reads, every column descending so that a cursor is one row
-- comparison walking the index: the token list by deploy and by operation count, ticker prefixes
-- (LIKE 'pre%' in any collation), holders of a token, balances of an address, and the activity of
-- one kind of operation (deploys are rare among mints: without it a page of them scans history).
CREATE INDEX brc20_tokens_deploy_key_idx ON brc20_tokens (block_height DESC, tx_index DESC, ticker DESC);
CREATE INDEX brc20_tokens_tx_count_key_idx ON brc20_tokens (tx_count DESC, ticker DESC);
CREATE INDEX brc20_tokens_prefix_idx ON brc20_tokens (ticker text_pattern_ops);
--bun:split
CREATE INDEX brc20_balances_holder_key_idx ON brc20_balances (ticker, total_balance DESC, address DESC) WHERE total_balance > 0;
CREATE INDEX brc20_balances_address_key_idx ON brc20_balances (address, total_balance DESC, ticker DESC) WHERE total_balance > 0;
--bun:split
CREATE INDEX brc20_operations_operation_key_idx ON brc20_operations (operation, block_height DESC, event_index DESC);
