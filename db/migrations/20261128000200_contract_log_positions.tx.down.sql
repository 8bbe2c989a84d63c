ALTER TABLE principal_event_counts DROP COLUMN log_count;
--bun:split

DROP INDEX principal_event_positions_logs_idx;
--bun:split

ALTER TABLE principal_event_positions DROP COLUMN log_seq;
