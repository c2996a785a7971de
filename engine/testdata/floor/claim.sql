-- The floor's claim: engine/sql/claim_batch.sql's lease, returning only what
-- the mark and the consumer need, read out of the payload by the server.
WITH candidates AS (
    SELECT ctid, id
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
RETURNING m.id, (m.payload->>'payment_id')::uuid, (m.payload->>'amount_cents')::bigint, m.payload->>'currency'
