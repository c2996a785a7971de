-- The dead-lettered messages an operator requeues, oldest first.
SELECT id FROM outbox_messages WHERE dead_lettered_at IS NOT NULL ORDER BY occurred_at, id
