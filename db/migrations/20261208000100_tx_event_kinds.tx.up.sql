-- The kinds of a transaction's events, one bit per event table (db.EventKinds), kept by
-- ingestion: a read of the transaction's events probes the tables that hold some of them instead
-- of every table its type can emit into. 0 where not recorded (rows stored before this column);
-- their reads probe as before. A constant default adds the column without rewriting the table.
ALTER TABLE txs ADD COLUMN event_kinds smallint NOT NULL DEFAULT 0;
