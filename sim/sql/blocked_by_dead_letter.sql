-- Events that wait for a dead-lettered predecessor of the same aggregate
-- (S15 + S20): consumers that check versions refuse them until an operator
-- requeues it. The caller keeps those the broker still holds.
SELECT later.id, right(later.aggregate_id, 8), later.aggregate_version, dead.aggregate_version, right(dead.id::text, 8)
FROM outbox_messages later
JOIN outbox_messages dead
  ON dead.aggregate_id = later.aggregate_id
 AND dead.aggregate_version < later.aggregate_version
 AND dead.dead_lettered_at IS NOT NULL
WHERE later.dead_lettered_at IS NULL
ORDER BY later.occurred_at, later.id, dead.aggregate_version
