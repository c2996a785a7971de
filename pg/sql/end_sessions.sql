-- Ends the other sessions on database $1 that may hold a lock: a previous
-- simulation's actor parked inside a transaction would otherwise hold the
-- locks TRUNCATE needs. An idle client holds none (a learner's psql
-- between two queries keeps its session, as does the user's own on a
-- --database-url server); nor does a walsender, and one streaming a slot
-- not of ours is someone else's replication (DropSlots ends the senders of
-- ours). Kept too: the sessions whose application_name is in $2 and those
-- whose pid is in $3 (the caller's own pool, the connections it keeps to
-- lend again).
SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND state <> 'idle'
  AND NOT (application_name = ANY ($2::text[])) AND NOT (pid = ANY ($3::int[]))
