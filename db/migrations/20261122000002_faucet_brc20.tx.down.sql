DROP TABLE IF EXISTS brc20_transferables, brc20_operations, brc20_balances, brc20_tokens, faucet_requests;
