-- claim: the deployment's lock on its database, held by one session for
-- the deployment's life (a session-level advisory lock: it ends with the
-- session, so a process killed with -9 leaves none behind). $1 is the key.
SELECT pg_try_advisory_lock($1)
