DROP TABLE IF EXISTS nft_custody;
--bun:split

DROP TABLE IF EXISTS ft_balances;
