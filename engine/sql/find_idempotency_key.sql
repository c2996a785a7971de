SELECT request_hash, payment_id, event_id, status_code, response
FROM idempotency_keys
WHERE client_id = $1 AND key = $2
