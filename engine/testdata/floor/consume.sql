-- The floor's consumer: a batch's inbox rows, its positions (each payment is
-- an aggregate of its own, at version 1) and its ledger entries in one
-- statement (its own transaction), the payloads read by the server; a
-- position and an entry only for a message the inbox had not seen.
WITH fresh AS (
    INSERT INTO inbox_messages (consumer_name, message_id, processed_at)
    SELECT $1, id, $2 FROM unnest($3::uuid[]) AS r(id)
    ON CONFLICT DO NOTHING
    RETURNING message_id
), r AS (
    SELECT r.id, (r.payload->>'payment_id')::uuid AS payment_id,
           (r.payload->>'amount_cents')::bigint AS amount_cents, r.payload->>'currency' AS currency
    FROM unnest($3::uuid[], $4::jsonb[]) AS r(id, payload)
    JOIN fresh ON fresh.message_id = r.id
), positions AS (
    INSERT INTO consumer_positions (consumer_name, aggregate_id, last_version)
    SELECT $1, payment_id::text, 1 FROM r
)
INSERT INTO ledger_entries (consumer_name, message_id, payment_id, amount_cents, currency, created_at)
SELECT $1, id, payment_id, amount_cents, currency, $2
FROM r
