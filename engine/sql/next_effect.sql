-- The oldest charge of the second outbox not sent yet. No lease and no
-- lock: a second sender that reads the same row calls the provider with the
-- same Idempotency-Key, and the provider charges once.
SELECT message_id, payment_id, amount_cents, currency
FROM effect_outbox
WHERE sent_at IS NULL
ORDER BY created_at, message_id
LIMIT 1
