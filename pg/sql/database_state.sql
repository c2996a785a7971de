-- Whether database $1 exists, and whether it is a clone of the template
-- no session has used yet: it carries the spare's mark $2.
SELECT count(*), coalesce(bool_or(shobj_description(oid, 'pg_database') = $2), false)
FROM pg_database
WHERE datname = $1
