-- Publish failed: persist the backoff (S14) and release the lease, owner only.
UPDATE outbox_messages
SET next_attempt_at = $3, last_error = $4, lock_id = NULL, locked_until = NULL
WHERE id = $1 AND lock_id = $2
