-- Lease a batch of this relay's lane (engine.OrderingPartition, S20): only
-- aggregates whose hash falls in the lane, $6 of $5 lanes (join_lanes.sql),
-- so each aggregate has one relay. hashtext is an int4 and may be negative:
-- shifted by 2^31 it is a non-negative bigint, and mod gives its lane.
-- The fence: a row is leased only if every earlier version of its aggregate
-- not yet published is in this same batch, where the relay publishes it
-- first (scanClaimed sorts a batch's versions). Anything else is an earlier
-- version that would go out after it: leased by the aggregate's old owner
-- when lanes move (a relay joined), locked by another relay's claim still
-- running (SKIP LOCKED passed it by), waiting for its retry, leased by this
-- relay's batch still in flight (a pipelined claim sent ahead), or beyond
-- the LIMIT because it occurred later — two captures of one payment race,
-- and the one that bumped the version second may have read the clock first.
-- What the table shows (a lease, a retry, a version that sorts later) keeps
-- a row out of candidates, so it takes no place in the LIMIT; what it
-- cannot show (another claim's lock) is caught by the UPDATE's check, and
-- the row is then locked until this statement ends, not leased.
WITH candidates AS (
    SELECT m.ctid, m.id, m.aggregate_type, m.aggregate_id, m.aggregate_version, m.lock_id AS prev_lock_id
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
            AND (e.next_attempt_at > $1
                 OR (e.lock_id IS NOT NULL AND (e.locked_until IS NULL OR e.locked_until > $1))
                 OR (e.occurred_at, e.id) > (m.occurred_at, m.id)))
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
  AND NOT EXISTS (
      SELECT 1 FROM outbox_messages AS e
      WHERE e.aggregate_type = c.aggregate_type
        AND e.aggregate_id = c.aggregate_id
        AND e.aggregate_version < c.aggregate_version
        AND e.published_at IS NULL
        AND e.dead_lettered_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM candidates AS b WHERE b.id = e.id))
RETURNING m.id, m.aggregate_type, m.aggregate_id, m.aggregate_version, m.event_type,
          m.schema_version, m.payload, m.trace_parent, m.occurred_at, m.attempts,
          c.prev_lock_id IS NOT NULL AS recovered
