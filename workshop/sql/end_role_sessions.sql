-- Ends every session of a learner's role, before the role is dropped: a
-- role with a session left cannot be dropped cleanly, and a session of a
-- learner who left is nobody's to end later.
SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = $1 AND pid <> pg_backend_pid()
