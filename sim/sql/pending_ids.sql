-- The outbox rows not yet published nor dead-lettered, oldest first: what
-- a CDC relay's stream still has to get past.
SELECT id FROM outbox_messages
WHERE published_at IS NULL AND dead_lettered_at IS NULL
ORDER BY occurred_at, id
