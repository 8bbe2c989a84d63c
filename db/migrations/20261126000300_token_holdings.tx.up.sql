-- Each principal's balance of each fungible token over the canonical anchored ft_events (mints
-- and transfers in, transfers and burns out), kept by ingestion beside the STX totals
-- (db/v2_balances.go): a block's events are added when it starts counting and taken back when
-- it stops. A row whose balance returned to 0 stays, and reads as no balance.
CREATE TABLE ft_balances (
    principal        text    NOT NULL,
    asset_identifier text    NOT NULL,
    balance          numeric NOT NULL,
    PRIMARY KEY (principal, asset_identifier)
);
-- A principal's tokens with a balance, in the order of its balances page.
CREATE INDEX ft_balances_order_idx ON ft_balances (principal, lower(asset_identifier), asset_identifier) WHERE balance > 0;
--bun:split

-- The last canonical anchored event of each non-fungible token (asset, value): its owner
-- (NULL once burnt) and the event that made it so, kept by ingestion the same way.
CREATE TABLE nft_custody (
    asset_identifier    text    NOT NULL,
    value               bytea   NOT NULL,
    recipient           text,
    tx_id               bytea   NOT NULL,
    index_block_hash    bytea   NOT NULL,
    microblock_hash     bytea   NOT NULL,
    block_height        integer NOT NULL,
    microblock_sequence integer NOT NULL,
    tx_index            integer NOT NULL,
    event_index         integer NOT NULL,
    PRIMARY KEY (asset_identifier, value)
);
-- A principal's tokens, newest acquisition first.
CREATE INDEX nft_custody_recipient_idx ON nft_custody
    (recipient, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC) WHERE recipient IS NOT NULL;
--bun:split

-- A database that holds a chain already: its balances and owners as of its counted events.
INSERT INTO ft_balances (principal, asset_identifier, balance)
SELECT principal, asset_identifier, sum(amount) FROM (
    SELECT recipient AS principal, asset_identifier, amount FROM ft_events
    WHERE canonical AND microblock_canonical AND index_block_hash <> '' AND recipient IS NOT NULL
    UNION ALL
    SELECT sender, asset_identifier, -amount FROM ft_events
    WHERE canonical AND microblock_canonical AND index_block_hash <> '' AND sender IS NOT NULL
) d GROUP BY principal, asset_identifier;
--bun:split

INSERT INTO nft_custody (asset_identifier, value, recipient, tx_id, index_block_hash, microblock_hash, block_height,
    microblock_sequence, tx_index, event_index)
SELECT DISTINCT ON (asset_identifier, value) asset_identifier, value, recipient, tx_id, index_block_hash, microblock_hash,
    block_height, microblock_sequence, tx_index, event_index
FROM nft_events WHERE canonical AND microblock_canonical AND index_block_hash <> ''
ORDER BY asset_identifier, value, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC;
