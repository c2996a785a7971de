-- The parked event that comes right after the version just applied, taken
-- out of the parking table in the same transaction that applies it.
DELETE FROM parked_messages
WHERE consumer_name = $1 AND aggregate_id = $2 AND aggregate_version = $3
RETURNING message_id, event_type, payload
