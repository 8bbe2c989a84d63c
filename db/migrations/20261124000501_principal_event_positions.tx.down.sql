DROP TABLE IF EXISTS principal_event_counts;
--bun:split

DROP TABLE IF EXISTS principal_event_positions;
