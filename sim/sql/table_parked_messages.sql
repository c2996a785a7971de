-- A window of the parked events as the Tables pane draws it: who holds
-- which event of which aggregate, at which version, since when.
SELECT consumer_name || ':' || message_id::text, consumer_name, right(message_id::text, 8),
       right(aggregate_id, 8), aggregate_version::text, event_type,
       to_char(parked_at AT TIME ZONE 'UTC', 'HH24:MI:SS.MS')
FROM parked_messages ORDER BY parked_at, consumer_name, message_id OFFSET $1 LIMIT $2
