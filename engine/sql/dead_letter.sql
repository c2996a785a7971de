-- Publish failed at the last attempt (S15): never claimed again until requeued.
UPDATE outbox_messages
SET dead_lettered_at = $3, last_error = $4, lock_id = NULL, locked_until = NULL
WHERE id = $1 AND lock_id = $2
