-- What a step receives up to: the WAL flushed when it starts. A walsender
-- sends flushed WAL only, so every transaction committed before the step is
-- at or below this position.
SELECT pg_current_wal_flush_lsn()::text
