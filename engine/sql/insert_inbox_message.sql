-- The inbox marker (S16): the primary key (consumer_name, message_id) decides;
-- 0 rows means this consumer already processed the message.
INSERT INTO inbox_messages (consumer_name, message_id, processed_at)
VALUES ($1, $2, $3)
ON CONFLICT DO NOTHING
