-- The position of each canonical anchored event in its principal's event list (tx/events by
-- address), oldest first, kept by ingestion (db/ingest_positions.go): a page at any offset is
-- one index range. kind indexes the event tables as db/read_graph_event.go lists them:
-- 0 contract_logs, 1 stx_lock_events, 2 stx_events, 3 ft_events, 4 nft_events.
CREATE TABLE principal_event_positions (
    principal        text     NOT NULL,
    seq              bigint   NOT NULL,
    kind             smallint NOT NULL,
    tx_id            bytea    NOT NULL,
    index_block_hash bytea    NOT NULL,
    microblock_hash  bytea    NOT NULL,
    event_index      integer  NOT NULL,
    PRIMARY KEY (principal, seq)
);
--bun:split

-- How many events each principal's list holds.
CREATE TABLE principal_event_counts (
    principal   text   PRIMARY KEY,
    event_count bigint NOT NULL DEFAULT 0
);
--bun:split

WITH ev (principal, kind, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index) AS (
    SELECT contract_identifier, 0, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index
    FROM contract_logs WHERE canonical AND microblock_canonical AND index_block_hash <> ''
    UNION ALL
    SELECT locked_address, 1, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index
    FROM stx_lock_events WHERE canonical AND microblock_canonical AND index_block_hash <> ''
    UNION ALL
    SELECT sender, 2, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index
    FROM stx_events WHERE canonical AND microblock_canonical AND index_block_hash <> ''
    UNION ALL
    SELECT recipient, 2, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index
    FROM stx_events WHERE canonical AND microblock_canonical AND index_block_hash <> '' AND recipient IS DISTINCT FROM sender
    UNION ALL
    SELECT sender, 3, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index
    FROM ft_events WHERE canonical AND microblock_canonical AND index_block_hash <> ''
    UNION ALL
    SELECT recipient, 3, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index
    FROM ft_events WHERE canonical AND microblock_canonical AND index_block_hash <> '' AND recipient IS DISTINCT FROM sender
    UNION ALL
    SELECT sender, 4, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index
    FROM nft_events WHERE canonical AND microblock_canonical AND index_block_hash <> ''
    UNION ALL
    SELECT recipient, 4, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index
    FROM nft_events WHERE canonical AND microblock_canonical AND index_block_hash <> '' AND recipient IS DISTINCT FROM sender
)
INSERT INTO principal_event_positions (principal, seq, kind, tx_id, index_block_hash, microblock_hash, event_index)
SELECT principal, row_number() OVER (PARTITION BY principal
        ORDER BY block_height, microblock_sequence, tx_index, event_index, kind, tx_id),
    kind, tx_id, index_block_hash, microblock_hash, event_index
FROM ev WHERE principal IS NOT NULL;
--bun:split

INSERT INTO principal_event_counts (principal, event_count)
SELECT principal, max(seq) FROM principal_event_positions GROUP BY principal;
