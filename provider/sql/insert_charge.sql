-- insert_charge: the provider charges the card (one row a charge).
INSERT INTO provider.charges (payment_id, amount_cents, currency, idempotency_key, charged_at)
VALUES ($1, $2, $3, $4, $5)
RETURNING charge_id
