-- accounting's effect.
INSERT INTO ledger_entries (consumer_name, message_id, payment_id, amount_cents, currency, created_at)
VALUES ($1, $2, $3, $4, $5, $6)
