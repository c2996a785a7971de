-- notifications' effect.
INSERT INTO notifications (consumer_name, message_id, payment_id, body, created_at)
VALUES ($1, $2, $3, $4, $5)
