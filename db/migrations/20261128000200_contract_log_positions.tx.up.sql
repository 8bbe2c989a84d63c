-- The position of each canonical anchored print event among its contract's (contract events by
-- offset): log_seq numbers the contract_logs rows (kind 0) of the contract's list in
-- principal_event_positions, oldest first, and principal_event_counts.log_count counts them, so
-- that a page at any offset is one index range instead of a walk past every newer event.
ALTER TABLE principal_event_positions ADD COLUMN log_seq bigint;
--bun:split

UPDATE principal_event_positions x SET log_seq = n.log_seq
FROM (SELECT principal, seq, row_number() OVER (PARTITION BY principal ORDER BY seq) AS log_seq
    FROM principal_event_positions WHERE kind = 0) n
WHERE x.principal = n.principal AND x.seq = n.seq;
--bun:split

CREATE INDEX principal_event_positions_logs_idx ON principal_event_positions (principal, log_seq) WHERE log_seq IS NOT NULL;
--bun:split

ALTER TABLE principal_event_counts ADD COLUMN log_count bigint NOT NULL DEFAULT 0;
--bun:split

UPDATE principal_event_counts c SET log_count = n.log_count
FROM (SELECT principal, count(*) AS log_count FROM principal_event_positions WHERE kind = 0 GROUP BY principal) n
WHERE c.principal = n.principal;
