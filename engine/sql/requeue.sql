-- Maintenance (S15): clear the dead letter, schedule it, keep the id. attempts
-- restarts so the message gets a full retry budget; last_error stays for audit.
UPDATE outbox_messages
SET dead_lettered_at = NULL, next_attempt_at = $2, attempts = 0, lock_id = NULL, locked_until = NULL
WHERE id = $1 AND dead_lettered_at IS NOT NULL
