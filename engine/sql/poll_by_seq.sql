-- The wrong relay (Watermill #311): the rows after this relay's cursor, in
-- seq order. No lease, no FOR UPDATE SKIP LOCKED, no published_at: the cursor
-- is all it remembers. seq is drawn at INSERT, not at COMMIT, so a row of a
-- transaction still open when a higher seq was read is behind the cursor by
-- the time it commits, and this WHERE never sees it again.
SELECT id, aggregate_type, aggregate_id, aggregate_version, event_type,
       schema_version, payload, trace_parent, occurred_at, attempts, seq
FROM outbox_messages
WHERE seq > COALESCE((SELECT last_seq FROM relay_offsets WHERE relay_name = $1), 0)
ORDER BY seq
LIMIT $2
