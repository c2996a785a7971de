-- What the server sees when the process behind a connection dies.
SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = $2
