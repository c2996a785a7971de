-- Each table's size on disk with its indexes and TOAST, and whether a
-- sequence it owns (an identity) was drawn from: how a reset tells the tables
-- a run wrote, even a row rolled back, from those it never touched.
SELECT t.name,
       pg_total_relation_size(t.name::regclass),
       EXISTS (SELECT 1
               FROM pg_depend d
               JOIN pg_sequence q ON q.seqrelid = d.objid
               WHERE d.classid = 'pg_class'::regclass
                 AND d.refclassid = 'pg_class'::regclass
                 AND d.refobjid = t.name::regclass
                 AND d.deptype IN ('a', 'i')
                 AND pg_sequence_last_value(q.seqrelid) IS NOT NULL)
FROM unnest($1::text[]) AS t(name)
