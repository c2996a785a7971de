-- A partitioning relay joins the lanes (once; again is a no-op) and reads
-- its lane: its index among the members by name, of as many lanes as there
-- are members. The INSERT is not visible to the rest of this statement, so
-- the members are the table's rows and this one.
WITH joined AS (
    INSERT INTO relay_lanes (relay_name, joined_at)
    VALUES ($1, $2)
    ON CONFLICT DO NOTHING
    RETURNING relay_name
), members AS (
    SELECT relay_name FROM relay_lanes
    UNION
    SELECT relay_name FROM joined
)
SELECT (SELECT count(*) FROM members WHERE relay_name < $1)::int AS lane,
       (SELECT count(*) FROM members)::int AS lanes
