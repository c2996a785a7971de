-- Events a parking consumer holds ahead of their version (S20) when the
-- drain has nothing left to move: each waits for a version that has not
-- come. How many, and the oldest: its message, consumer, aggregate, version
-- and the version its consumer expects next.
SELECT count(*) OVER (), right(k.message_id::text, 8), k.consumer_name, right(k.aggregate_id, 8),
       k.aggregate_version, COALESCE(p.last_version, 0) + 1
FROM parked_messages k
LEFT JOIN consumer_positions p
  ON p.consumer_name = k.consumer_name AND p.aggregate_id = k.aggregate_id
ORDER BY k.parked_at, k.message_id
LIMIT 1
