-- Positions of a batch's aggregates, locked in a fixed order (no deadlock
-- between consumers locking overlapping sets).
SELECT aggregate_id, last_version FROM consumer_positions
WHERE consumer_name = $1 AND aggregate_id = ANY($2)
ORDER BY aggregate_id
FOR UPDATE
