-- Per consumer, the published events whose effect that consumer does not
-- have (S22: a new event taken for a duplicate, ACKed with no effect). A
-- PaymentCreated's effect is its row, by message id: a ledger entry for
-- accounting, a notification for notifications. A later event of a payment
-- (a capture) writes no row of its own: its effect is the consumer's
-- position reaching its version, or, for a consumer that checks no
-- versions, its inbox marker. Dead-lettered rows are counted as such; what
-- the broker still holds for the consumer (queued, unACKed, rejected to its
-- dead letters) is left out by the caller. An event a parking consumer
-- holds ahead of its version (parked_messages) is not suppressed: it is
-- applied when the gap fills.
SELECT o.id::text, c.consumer
FROM outbox_messages o
CROSS JOIN (VALUES ('accounting'), ('notifications')) AS c(consumer)
WHERE o.published_at IS NOT NULL AND o.dead_lettered_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM parked_messages k WHERE k.consumer_name = c.consumer AND k.message_id = o.id)
  AND CASE
        WHEN o.event_type = 'PaymentCreated' AND c.consumer = 'accounting' THEN
          NOT EXISTS (SELECT 1 FROM ledger_entries l WHERE l.message_id = o.id)
        WHEN o.event_type = 'PaymentCreated' THEN
          NOT EXISTS (SELECT 1 FROM notifications n WHERE n.message_id = o.id)
        ELSE
          NOT EXISTS (SELECT 1 FROM consumer_positions p
                      WHERE p.consumer_name = c.consumer AND p.aggregate_id = o.aggregate_id AND p.last_version >= o.aggregate_version)
          AND NOT EXISTS (SELECT 1 FROM inbox_messages i WHERE i.consumer_name = c.consumer AND i.message_id = o.id)
      END
ORDER BY 1, 2
