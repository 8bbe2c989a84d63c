-- Per-principal checkpoints and positions, kept by ingestion beside principal_stx_totals
-- (db/ingest_totals.go), so that no account read depends on the size of the account's history.

-- The running totals of a principal after each canonical anchored block that changed them: a
-- balance at any height is the newest checkpoint at or below it. A block leaving the canonical
-- chain takes its checkpoints with it; the ones below stay valid.
CREATE TABLE principal_stx_checkpoints (
    principal      text    NOT NULL,
    block_height   integer NOT NULL,
    total_received numeric NOT NULL,
    total_sent     numeric NOT NULL,
    total_fees_sent numeric NOT NULL,
    total_miner_rewards_received numeric NOT NULL,
    tx_count       bigint  NOT NULL,
    tx_count_all   bigint  NOT NULL,
    PRIMARY KEY (principal, block_height)
);
--bun:split

-- The position of each canonical anchored transaction in its principal's lists, oldest first:
-- seq in every transaction the principal took part in, tseq in transactions_with_transfers
-- (roles & 61 <> 0). A page at any offset is one index range.
CREATE TABLE principal_tx_positions (
    principal        text    NOT NULL,
    seq              bigint  NOT NULL,
    tseq             bigint,
    block_height     integer NOT NULL,
    tx_id            bytea   NOT NULL,
    index_block_hash bytea   NOT NULL,
    microblock_hash  bytea   NOT NULL,
    PRIMARY KEY (principal, seq)
);
CREATE UNIQUE INDEX principal_tx_positions_transfers_idx ON principal_tx_positions (principal, tseq) INCLUDE (tx_id, index_block_hash, microblock_hash)
    WHERE tseq IS NOT NULL;
--bun:split

-- tx_count_all counts every canonical anchored transaction of the principal.
ALTER TABLE principal_stx_totals ADD COLUMN tx_count_all bigint NOT NULL DEFAULT 0;
--bun:split

INSERT INTO principal_tx_positions (principal, seq, tseq, block_height, tx_id, index_block_hash, microblock_hash)
SELECT principal, row_number() OVER w,
    CASE WHEN roles & 61 <> 0 THEN count(*) FILTER (WHERE roles & 61 <> 0) OVER w END,
    block_height, tx_id, index_block_hash, microblock_hash
FROM principal_txs WHERE canonical AND microblock_canonical AND index_block_hash <> ''
WINDOW w AS (PARTITION BY principal ORDER BY block_height, microblock_sequence, tx_index, tx_id ROWS UNBOUNDED PRECEDING);
--bun:split

INSERT INTO principal_stx_totals AS t (principal, tx_count_all)
SELECT principal, max(seq) FROM principal_tx_positions GROUP BY principal
ON CONFLICT (principal) DO UPDATE SET tx_count_all = excluded.tx_count_all;
--bun:split

WITH d (principal, block_height, received, sent, fees, rewards, tx_count, tx_count_all) AS (
    SELECT recipient, block_height, amount, 0, 0, 0, 0, 0 FROM stx_events
    WHERE canonical AND microblock_canonical AND index_block_hash <> '' AND recipient IS NOT NULL
    UNION ALL
    SELECT sender, block_height, 0, amount, 0, 0, 0, 0 FROM stx_events
    WHERE canonical AND microblock_canonical AND index_block_hash <> '' AND sender IS NOT NULL
    UNION ALL
    SELECT CASE WHEN sponsored THEN sponsor_address ELSE sender_address END, block_height, 0, 0, fee_rate, 0, 0, 0 FROM txs
    WHERE canonical AND microblock_canonical AND index_block_hash <> ''
    UNION ALL
    SELECT principal, block_height, 0, 0, 0, 0, CASE WHEN tseq IS NOT NULL THEN 1 ELSE 0 END, 1 FROM principal_tx_positions
    UNION ALL
    SELECT recipient, mature_block_height, 0, 0, 0, coinbase_amount + tx_fees_anchored + tx_fees_streamed_confirmed + tx_fees_streamed_produced, 0, 0
    FROM miner_rewards WHERE canonical
), per AS (
    SELECT principal, block_height, sum(received) AS received, sum(sent) AS sent, sum(fees) AS fees, sum(rewards) AS rewards,
        sum(tx_count) AS tx_count, sum(tx_count_all) AS tx_count_all
    FROM d WHERE principal IS NOT NULL GROUP BY principal, block_height
)
INSERT INTO principal_stx_checkpoints (principal, block_height, total_received, total_sent, total_fees_sent,
    total_miner_rewards_received, tx_count, tx_count_all)
SELECT principal, block_height, sum(received) OVER w, sum(sent) OVER w, sum(fees) OVER w, sum(rewards) OVER w,
    sum(tx_count) OVER w, sum(tx_count_all) OVER w
FROM per WINDOW w AS (PARTITION BY principal ORDER BY block_height ROWS UNBOUNDED PRECEDING);
