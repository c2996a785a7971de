-- Lease a batch, one event in flight per aggregate (engine.OrderingOneInFlight,
-- S20): claim_batch, but a row whose aggregate has an earlier version not
-- yet published (pending, leased, or waiting for its retry) is skipped, so
-- version n+1 is claimable only once version n is marked published, by any
-- relay. A claim therefore takes at most one row of each aggregate: the
-- first, as the earlier one of the same batch is unpublished too. Still
-- FOR UPDATE SKIP LOCKED, still a lease: the earlier row's lock or lease
-- only makes this one wait. A dead-lettered version does not hold its
-- aggregate back (an operator has it). The NOT EXISTS reads
-- outbox_messages_aggregate_unpublished_idx.
WITH candidates AS (
    SELECT m.ctid, m.id, m.lock_id AS prev_lock_id
    FROM outbox_messages AS m
    WHERE m.published_at IS NULL
      AND m.dead_lettered_at IS NULL
      AND m.next_attempt_at <= $1
      AND (m.lock_id IS NULL OR m.locked_until <= $1)
      AND NOT EXISTS (
          SELECT 1 FROM outbox_messages AS e
          WHERE e.aggregate_type = m.aggregate_type
            AND e.aggregate_id = m.aggregate_id
            AND e.aggregate_version < m.aggregate_version
            AND e.published_at IS NULL
            AND e.dead_lettered_at IS NULL)
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
