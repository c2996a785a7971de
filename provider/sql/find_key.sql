-- find_key: the first answer to an idempotency key, and the body it came with.
SELECT payment_id, amount_cents, currency, charge_id
FROM provider.idempotency_keys
WHERE idempotency_key = $1
