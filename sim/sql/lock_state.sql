-- The lock-wait checks' view of one database ($1): each client connection's
-- application_name (an actor's name), whether it waits for a lock, and
-- whether it runs (active, waiting for no lock). The wait is read from the
-- lock manager: a lock its holder releases is granted to the waiter by the
-- releasing backend, before that one's COMMIT returns, whereas wait_event
-- changes only when the waiter next runs.
SELECT a.application_name,
       w.pid IS NOT NULL AS waits,
       a.state = 'active' AND w.pid IS NULL AS runs
FROM pg_stat_activity a
LEFT JOIN (SELECT DISTINCT pid FROM pg_locks WHERE NOT granted) w ON w.pid = a.pid
WHERE a.datname = $1 AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'
