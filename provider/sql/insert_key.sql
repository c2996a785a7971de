-- insert_key: the key's first answer, in the charge's transaction. A
-- concurrent request with the same key waits here on the unique index until
-- the first commits, then inserts nothing: its own charge is rolled back and
-- it answers the stored one.
INSERT INTO provider.idempotency_keys (idempotency_key, payment_id, amount_cents, currency, charge_id, created_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (idempotency_key) DO NOTHING
