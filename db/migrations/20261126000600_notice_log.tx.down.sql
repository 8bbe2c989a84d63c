DROP TABLE notices;
--bun:split
DROP FUNCTION notices_send();
