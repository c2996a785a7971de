-- The sequences behind the identities of the tables $1 (and any serial),
-- each with where it starts: what a reset restarts, as TRUNCATE ... RESTART
-- IDENTITY would.
SELECT q.seqrelid::regclass::text, q.seqstart
FROM pg_depend d
JOIN pg_sequence q ON q.seqrelid = d.objid
WHERE d.classid = 'pg_class'::regclass
  AND d.refclassid = 'pg_class'::regclass
  AND d.deptype IN ('a', 'i')
  AND d.refobjid = ANY ($1::regclass[])
ORDER BY 1
