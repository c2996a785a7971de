-- Rows claim_batch would lease now (unpublished, due, not leased) although
-- an ordering claim leased nothing: what the ordering holds back from this
-- relay (an earlier version in flight, or another relay's lane).
SELECT count(*)
FROM outbox_messages
WHERE published_at IS NULL
  AND dead_lettered_at IS NULL
  AND next_attempt_at <= $1
  AND (lock_id IS NULL OR locked_until <= $1)
