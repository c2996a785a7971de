-- Lease a batch of this relay's lane (engine.OrderingPartition, S20): only
-- aggregates whose hash falls in the lane, $6 of $5 lanes (join_lanes.sql),
-- so each aggregate has one relay and that relay publishes its events in
-- (occurred_at, id) order. hashtext is an int4 and may be negative: shifted
-- by 2^31 it is a non-negative bigint, and mod gives its lane.
-- The fence: when lanes move (a relay joined), the aggregate's new owner
-- may find an earlier version still leased by its old owner, or waiting for
-- its retry; it skips the aggregate until that version is published, or it
-- would overtake it. Its own batch needs no fence: it publishes in order.
WITH candidates AS (
    SELECT m.ctid, m.id, m.lock_id AS prev_lock_id
    FROM outbox_messages AS m
    WHERE m.published_at IS NULL
      AND m.dead_lettered_at IS NULL
      AND m.next_attempt_at <= $1
      AND (m.lock_id IS NULL OR m.locked_until <= $1)
      AND mod(hashtext(m.aggregate_id)::bigint + 2147483648, $5::bigint) = $6
      AND NOT EXISTS (
          SELECT 1 FROM outbox_messages AS e
          WHERE e.aggregate_type = m.aggregate_type
            AND e.aggregate_id = m.aggregate_id
            AND e.aggregate_version < m.aggregate_version
            AND e.published_at IS NULL
            AND e.dead_lettered_at IS NULL
            AND (e.next_attempt_at > $1 OR (e.lock_id <> $3 AND (e.locked_until IS NULL OR e.locked_until > $1))))
    ORDER BY m.occurred_at, m.id
    FOR UPDATE OF m SKIP LOCKED
    LIMIT $2
)
UPDATE outbox_messages AS m
SET lock_id = $3,
    locked_until = $4,
    attempts = m.attempts + 1
FROM candidates AS c
WHERE m.ctid = c.ctid
  AND m.id = c.id
RETURNING m.id, m.aggregate_type, m.aggregate_id, m.aggregate_version, m.event_type,
          m.schema_version, m.payload, m.trace_parent, m.occurred_at, m.attempts,
          c.prev_lock_id IS NOT NULL AS recovered
