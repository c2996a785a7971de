-- Many payments in one statement (batched producers).
INSERT INTO payments (id, client_id, amount_cents, currency, version, trace_parent, created_at)
SELECT id, client_id, amount_cents, currency, 1, trace_parent, $6
FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::text[])
     AS r(id, client_id, amount_cents, currency, trace_parent)
