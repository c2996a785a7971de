-- stall_read: bounds the stall watcher's read, local to its transaction:
-- every statement to $1 ms, and a wait on a lock (a LOCK TABLE in another
-- session) to $2 ms. Its question comes back every few seconds and can
-- wait for the next round, so it gives up at once instead of queuing
-- behind the lock beside the snapshot's read. Named apart in
-- pg_stat_activity for psql to see.
SELECT set_config('statement_timeout', $1, true),
       set_config('lock_timeout', $2, true),
       set_config('application_name', 'outboxlab-stall-watch', true)
