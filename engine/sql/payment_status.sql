-- Where a payment's events are (GET /payments/{id}): the payment, then one row
-- per event of its aggregate, in version order, each with its outbox state and
-- the consumers whose inbox holds it. $2 is the caller's clock, never now():
-- whether a lease still runs is a question of the simulator's time.
-- No index serves aggregate_id: this is a diagnostic read of one payment, and
-- an index would cost every payment's INSERT to speed it up.
SELECT p.id, p.client_id, p.amount_cents, p.currency, p.version, p.trace_parent, p.created_at,
       m.id, m.event_type, m.aggregate_version, m.occurred_at, m.attempts, m.next_attempt_at,
       m.lock_id, m.locked_until, m.published_at, m.dead_lettered_at, m.last_error,
       CASE
           WHEN m.id IS NULL THEN NULL
           WHEN m.dead_lettered_at IS NOT NULL THEN 'dead_lettered'
           WHEN m.published_at IS NOT NULL THEN 'published'
           WHEN m.lock_id IS NOT NULL AND (m.locked_until IS NULL OR m.locked_until > $2) THEN 'leased'
           WHEN m.lock_id IS NOT NULL THEN 'lease_expired'
           ELSE 'pending'
       END AS state,
       coalesce(i.consumers, '{}'), coalesce(i.processed, '{}')
FROM payments AS p
LEFT JOIN outbox_messages AS m
       ON m.aggregate_type = $3 AND m.aggregate_id = p.id::text
LEFT JOIN LATERAL (
    SELECT array_agg(consumer_name ORDER BY consumer_name) AS consumers,
           array_agg(processed_at ORDER BY consumer_name) AS processed
    FROM inbox_messages
    WHERE message_id = m.id
) AS i ON true
WHERE p.id = $1
ORDER BY m.aggregate_version, m.occurred_at, m.id
