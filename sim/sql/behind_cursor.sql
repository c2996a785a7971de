-- Pending rows behind every seq-cursor relay's cursor (relay_offsets): their
-- transactions committed after a higher seq was polled, and no poll asks for
-- a seq at or below the cursor again. Zero rows and a NULL cursor without
-- such a relay.
SELECT count(*), (SELECT min(last_seq) FROM relay_offsets)
FROM outbox_messages
WHERE published_at IS NULL AND dead_lettered_at IS NULL
  AND seq <= (SELECT min(last_seq) FROM relay_offsets)
