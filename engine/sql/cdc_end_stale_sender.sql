-- The walsender of this relay's earlier, crashed life may not have noticed
-- its client is gone; a slot streams to one session at a time.
SELECT count(pg_terminate_backend(active_pid))
FROM pg_replication_slots
WHERE slot_name = $1 AND active_pid IS NOT NULL
