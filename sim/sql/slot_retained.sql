-- slot_retained_bytes: the WAL written since the CDC relay's slot was last
-- confirmed (server-wide WAL: every database's writes count), which the
-- server must keep for it; 0 with no slot. The files themselves are freed
-- from restart_lsn, which follows the confirmed position at the next
-- snapshot of running transactions the slot decodes (a checkpoint writes one).
-- Only outboxlab's slots ($1 is slotname.Prefix): another's is not the figure's.
SELECT count(*),
       COALESCE(sum(pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)), 0)::bigint
FROM pg_replication_slots
WHERE database = current_database() AND starts_with(slot_name, $1) AND plugin = 'pgoutput' AND slot_type = 'logical'
