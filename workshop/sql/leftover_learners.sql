-- The learners' roles a room left behind when it was killed (kill -9 of
-- the host skips every learner's cleanup): members of the template's
-- users named ws_*. Their databases are named after them.
SELECT r.rolname
FROM pg_roles r
JOIN pg_auth_members m ON m.member = r.oid
JOIN pg_roles g ON g.oid = m.roleid
WHERE g.rolname = $1 AND r.rolname LIKE 'ws\_%'
ORDER BY r.rolname
