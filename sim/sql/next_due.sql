-- Pending outbox rows and the earliest moment one becomes claimable: its
-- next_attempt_at, or its lease's end if later.
SELECT count(*), min(GREATEST(next_attempt_at, COALESCE(locked_until, next_attempt_at)))
FROM outbox_messages
WHERE published_at IS NULL AND dead_lettered_at IS NULL
