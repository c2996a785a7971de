-- Whether an actor's connection (named by application_name) waits for a lock.
SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND datname = $2 AND wait_event_type = 'Lock'
