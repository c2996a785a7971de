-- notifications' effects for a batch.
INSERT INTO notifications (consumer_name, message_id, payment_id, body, created_at)
SELECT $1, message_id, payment_id, body, $5
FROM unnest($2::uuid[], $3::uuid[], $4::text[]) AS r(message_id, payment_id, body)
