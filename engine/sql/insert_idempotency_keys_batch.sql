INSERT INTO idempotency_keys (client_id, key, request_hash, payment_id, event_id, status_code, response, created_at)
SELECT client_id, key, request_hash, payment_id, event_id, status_code, response, $8
FROM unnest($1::text[], $2::text[], $3::bytea[], $4::uuid[], $5::uuid[], $6::int[], $7::jsonb[])
     AS r(client_id, key, request_hash, payment_id, event_id, status_code, response)
