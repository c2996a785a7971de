-- The spare databases named with prefix $1, and the mark each carries
-- (the schema it was cloned at, SpareMark), '' for none.
SELECT datname, coalesce(shobj_description(oid, 'pg_database'), '')
FROM pg_database
WHERE starts_with(datname, $1)
ORDER BY datname
