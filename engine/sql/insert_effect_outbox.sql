-- The consumer's second outbox (S19): the charge decided in the inbox
-- marker's transaction, for the sender to make with the provider. The
-- message id is the row's key and the provider's Idempotency-Key.
INSERT INTO effect_outbox (message_id, consumer_name, payment_id, amount_cents, currency, created_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (message_id) DO NOTHING
