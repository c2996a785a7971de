-- accounting's effects for a batch.
INSERT INTO ledger_entries (consumer_name, message_id, payment_id, amount_cents, currency, created_at)
SELECT $1, message_id, payment_id, amount_cents, currency, $6
FROM unnest($2::uuid[], $3::uuid[], $4::bigint[], $5::text[]) AS r(message_id, payment_id, amount_cents, currency)
