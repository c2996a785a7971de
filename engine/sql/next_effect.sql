-- The oldest charge of the second outbox not sent yet. No lease and no
-- lock: a second sender that reads the same row calls the provider with the
-- same Idempotency-Key, and the provider charges once. No retry schedule
-- either: a row the provider refuses for good stays first, and every later
-- charge waits behind it (the sender says so each time it tries) — the
-- second outbox here teaches the key and the transaction, not a relay's
-- backoff and dead letter, which the first outbox shows.
SELECT message_id, payment_id, amount_cents, currency
FROM effect_outbox
WHERE sent_at IS NULL
ORDER BY created_at, message_id
LIMIT 1
