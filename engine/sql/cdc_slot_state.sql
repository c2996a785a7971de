-- Where a (re)started stream begins: the slot's confirmed_flush_lsn, the
-- last position a relay confirmed. active_pid is the walsender still
-- attached, a crashed earlier life's until the server notices it is gone.
SELECT confirmed_flush_lsn::text, active_pid
FROM pg_replication_slots
WHERE slot_name = $1
