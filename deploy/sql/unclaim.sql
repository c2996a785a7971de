-- unclaim: lets go of the deployment's lock ($1, the key) before its
-- session closes. A closed connection's backend ends a moment later, and
-- until it has, the lock is still held: a deployment started right after
-- this one stopped would find its own database claimed.
SELECT pg_advisory_unlock($1)
