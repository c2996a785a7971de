-- The connections open on a database, other than this one: what a closed
-- simulator must leave at zero.
SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()
