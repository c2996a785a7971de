-- The floor's mark: engine/sql/mark_published.sql, nothing returned.
UPDATE outbox_messages
SET published_at = $3, lock_id = NULL, locked_until = NULL, last_error = NULL
WHERE id = ANY($1) AND lock_id = $2
