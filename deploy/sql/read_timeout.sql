-- read_timeout: bounds every statement of a snapshot's transaction ($1,
-- in milliseconds). PostgreSQL itself then ends a read that waits on a
-- lock (a LOCK TABLE in another session): a context deadline alone closes
-- the client's socket and leaves the backend waiting, and reads would pile
-- up on the server. The read is named in pg_stat_activity for psql to
-- see. Both local to the transaction: the pool's connection goes back
-- unchanged.
SELECT set_config('statement_timeout', $1, true),
       set_config('application_name', 'outboxlab-snapshot', true)
