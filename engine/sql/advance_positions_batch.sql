-- Advance the batch's positions (S20). $4 says, per aggregate, whether
-- read_positions_batch found (and so locked) its row. Found rows are updated
-- and must still be behind the new version; the others are inserted by a
-- plain INSERT, which costs PostgreSQL markedly less than ON CONFLICT's
-- speculative insertion. A row another consumer inserted meanwhile makes that
-- INSERT fail with a unique violation (once the other commits): the caller
-- aborts the batch as when a position moved first. The count is the rows
-- advanced; less than the aggregates given also aborts the batch.
WITH r AS (
    SELECT * FROM unnest($2::text[], $3::bigint[], $4::boolean[]) AS r(aggregate_id, last_version, existing)
), upd AS (
    UPDATE consumer_positions AS p
    SET last_version = r.last_version
    FROM r
    WHERE r.existing
      AND p.consumer_name = $1
      AND p.aggregate_id = r.aggregate_id
      AND p.last_version < r.last_version
    RETURNING 1
), ins AS (
    INSERT INTO consumer_positions (consumer_name, aggregate_id, last_version)
    SELECT $1, aggregate_id, last_version FROM r WHERE NOT r.existing
    RETURNING 1
)
SELECT (SELECT count(*) FROM upd) + (SELECT count(*) FROM ins)
