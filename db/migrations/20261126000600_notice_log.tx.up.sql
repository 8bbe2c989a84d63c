-- Every notice ingestion sends is also kept here, numbered in commit order: a listener that lost
-- its connection, or a subscriber resuming from a position, reads what it missed, each notice
-- once. The last 100,000 notices are kept.
CREATE TABLE notices (
    seq        bigint      PRIMARY KEY,
    channel    text        NOT NULL,
    payload    text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
--bun:split

-- Numbers a notice, adds its number to its payload and sends it. The advisory lock is held by
-- one writer from its first notice to its commit, so numbers commit in order: whoever has seen
-- notice n has seen every notice below it.
CREATE FUNCTION notices_send() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(7957707062574936865); -- 'notices!' in ASCII, big-endian
    SELECT coalesce(max(seq), 0) + 1 INTO NEW.seq FROM notices;
    NEW.payload := '{"seq":' || NEW.seq || ',' || substr(NEW.payload, 2);
    PERFORM pg_notify(NEW.channel, NEW.payload);
    IF NEW.seq % 1000 = 0 THEN
        DELETE FROM notices WHERE seq <= NEW.seq - 100000;
    END IF;
    RETURN NEW;
END $$;
--bun:split

CREATE TRIGGER notices_send BEFORE INSERT ON notices FOR EACH ROW EXECUTE FUNCTION notices_send();
