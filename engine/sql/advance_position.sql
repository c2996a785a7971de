-- Advance only from the version just read: 0 rows means another transaction
-- moved the position first (a concurrent insert of the first version).
INSERT INTO consumer_positions AS p (consumer_name, aggregate_id, last_version)
VALUES ($1, $2, $3)
ON CONFLICT (consumer_name, aggregate_id) DO UPDATE
SET last_version = EXCLUDED.last_version
WHERE p.last_version = EXCLUDED.last_version - 1
