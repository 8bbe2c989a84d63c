DROP INDEX IF EXISTS brc20_balances_address_key_idx, brc20_balances_holder_key_idx, brc20_tokens_prefix_idx,
    brc20_tokens_tx_count_key_idx, brc20_tokens_deploy_key_idx;
