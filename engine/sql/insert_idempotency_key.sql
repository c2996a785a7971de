-- The arbiter of "same logical request" (S3, S21): commits with the payment or not at all.
INSERT INTO idempotency_keys (client_id, key, request_hash, payment_id, event_id, status_code, response, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
