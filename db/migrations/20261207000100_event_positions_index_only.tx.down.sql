DROP INDEX principal_event_positions_logs_idx;
--bun:split

CREATE INDEX principal_event_positions_logs_idx ON principal_event_positions (principal, log_seq) WHERE log_seq IS NOT NULL;
--bun:split

ALTER TABLE principal_event_positions DROP CONSTRAINT principal_event_positions_pkey;
--bun:split

ALTER TABLE principal_event_positions ADD CONSTRAINT principal_event_positions_pkey PRIMARY KEY (principal, seq);
