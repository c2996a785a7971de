SELECT k.client_id, k.key, k.request_hash, k.payment_id, k.event_id, k.status_code, k.response
FROM idempotency_keys AS k
JOIN unnest($1::text[], $2::text[]) AS r(client_id, key)
  ON k.client_id = r.client_id AND k.key = r.key
