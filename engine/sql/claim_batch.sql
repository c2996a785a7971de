-- Lease a batch (S9): ready rows in (occurred_at, id) order, skipping rows
-- another worker holds locked; the claim commits on its own, so no lock is
-- held while publishing (S8). attempts counts claims (S10). prev_lock_id is
-- not null when an expired lease is being recovered. A row is free when
-- nobody leased it or its lease has ended: a lease with no end (lock_id set,
-- locked_until NULL, the wrong way RelayConfig.LeaseForever shows) is held
-- for ever.
-- The UPDATE finds each candidate by its ctid, not through the primary key:
-- the row is locked by FOR UPDATE, so it cannot move before this statement
-- ends, and a ctid that did not match would only leave that row unclaimed.
WITH candidates AS (
    SELECT ctid, id, lock_id AS prev_lock_id
    FROM outbox_messages
    WHERE published_at IS NULL
      AND dead_lettered_at IS NULL
      AND next_attempt_at <= $1
      AND (lock_id IS NULL OR locked_until <= $1)
    ORDER BY occurred_at, id
    FOR UPDATE SKIP LOCKED
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
