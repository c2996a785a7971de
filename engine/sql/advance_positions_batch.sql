-- Advance the batch's positions. Existing rows are locked by
-- read_positions_batch; a row another consumer inserted meanwhile fails the
-- WHERE and is missing from the count, which aborts the batch.
INSERT INTO consumer_positions AS p (consumer_name, aggregate_id, last_version)
SELECT $1, aggregate_id, last_version FROM unnest($2::text[], $3::bigint[]) AS r(aggregate_id, last_version)
ON CONFLICT (consumer_name, aggregate_id) DO UPDATE
SET last_version = EXCLUDED.last_version
WHERE p.last_version < EXCLUDED.last_version
