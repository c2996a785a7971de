-- Retention (S23): published rows older than the horizon, one small batch per
-- statement so no long transaction or big lock is held.
DELETE FROM outbox_messages
WHERE id IN (
    SELECT id FROM outbox_messages
    WHERE published_at < $1
    ORDER BY published_at
    LIMIT $2
)
