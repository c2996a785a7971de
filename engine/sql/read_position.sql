-- The last version this consumer applied for the aggregate (S20), locked so
-- concurrent deliveries of one aggregate take turns.
SELECT last_version FROM consumer_positions
WHERE consumer_name = $1 AND aggregate_id = $2
FOR UPDATE
