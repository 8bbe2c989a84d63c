-- The address transaction summaries list the transactions where a principal plays any role but
-- stx_lock (roles & 63 <> 0: sender, sponsor, token-transfer recipient, called or deployed
-- contract, asset event party); of the boot data adopted from "block 0" (roles & 128, set by
-- ingestion from now on) only asset event parties. sseq numbers them per principal, oldest
-- first, beside seq and tseq (db/ingest_totals.go), and summary_tx_count counts them.
ALTER TABLE principal_tx_positions ADD COLUMN sseq bigint;
--bun:split

ALTER TABLE principal_stx_totals ADD COLUMN summary_tx_count bigint NOT NULL DEFAULT 0;
--bun:split

-- Mark the boot data adopted from "block 0": the transactions of the first /new_block the node
-- sent, when that was block 0 (ingestion marks them from now on).
UPDATE principal_txs p SET roles = p.roles | 128
FROM (SELECT decode(substr(t->>'txid', 3), 'hex') AS tx_id
    FROM (SELECT payload FROM event_observer_requests WHERE event_path = '/new_block' ORDER BY receive_timestamp, id LIMIT 1) r
    CROSS JOIN LATERAL jsonb_array_elements(r.payload->'transactions') t
    WHERE r.payload->>'block_height' = '0') z
WHERE p.tx_id = z.tx_id AND p.block_height = 1;
--bun:split

UPDATE principal_tx_positions x SET sseq = s.sseq
FROM (SELECT p.principal, p.tx_id, p.index_block_hash, p.microblock_hash,
        count(*) FILTER (WHERE p.roles & 32 <> 0 OR (p.roles & 31 <> 0 AND p.roles & 128 = 0)) OVER w AS sseq,
        p.roles & 32 <> 0 OR (p.roles & 31 <> 0 AND p.roles & 128 = 0) AS listed
    FROM principal_txs p WHERE p.canonical AND p.microblock_canonical AND p.index_block_hash <> ''
    WINDOW w AS (PARTITION BY p.principal ORDER BY p.block_height, p.microblock_sequence, p.tx_index, p.tx_id ROWS UNBOUNDED PRECEDING)) s
WHERE s.listed AND x.principal = s.principal AND x.tx_id = s.tx_id AND x.index_block_hash = s.index_block_hash
    AND x.microblock_hash = s.microblock_hash;
--bun:split

UPDATE principal_stx_totals t SET summary_tx_count = s.n
FROM (SELECT principal, max(sseq) AS n FROM principal_tx_positions WHERE sseq IS NOT NULL GROUP BY principal) s
WHERE t.principal = s.principal;
--bun:split

-- A summaries page at any offset is one range of this index.
CREATE UNIQUE INDEX principal_tx_positions_summaries_idx ON principal_tx_positions (principal, sseq)
    INCLUDE (tx_id, index_block_hash, microblock_hash) WHERE sseq IS NOT NULL;
--bun:split

-- The pending deployment of a contract, for the contract status read.
CREATE INDEX mempool_txs_smart_contract_idx ON mempool_txs (smart_contract_contract_id, nonce)
    WHERE NOT pruned AND smart_contract_contract_id IS NOT NULL;
--bun:split

-- The fee rates of the pending mempool per payload type, for the fee priorities, read from the
-- index alone.
CREATE INDEX mempool_txs_fee_idx ON mempool_txs (type_id, fee_rate) WHERE NOT pruned;
