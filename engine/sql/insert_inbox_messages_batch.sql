-- The inbox markers of a batch of deliveries (S16): RETURNING names the new
-- ones; a message missing from it was already processed (or repeats in the batch).
INSERT INTO inbox_messages (consumer_name, message_id, processed_at)
SELECT $1, id, $3 FROM unnest($2::uuid[]) AS r(id)
ON CONFLICT DO NOTHING
RETURNING message_id
