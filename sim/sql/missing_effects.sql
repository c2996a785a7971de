-- Per consumer, payments without that consumer's effect whose event is not
-- pending in the outbox; dead says an event of the payment is dead-lettered
-- (counted there, not as lost). What the broker still holds is checked by the
-- caller. A row behind every seq cursor (relay_offsets, the wrong
-- seq-cursor relay) is not pending: no poll will ever read it, so it is lost;
-- nor is a row leased with no end by a worker no relay alive has ($1, the
-- wrong lease: forever): nobody will ever claim it.
SELECT p.id::text, c.consumer,
       EXISTS (SELECT 1 FROM outbox_messages o WHERE o.aggregate_id = p.id::text AND o.dead_lettered_at IS NOT NULL) AS dead
FROM payments p
CROSS JOIN (VALUES ('accounting'), ('notifications')) AS c(consumer)
WHERE NOT EXISTS (SELECT 1 FROM outbox_messages o WHERE o.aggregate_id = p.id::text AND o.published_at IS NULL AND o.dead_lettered_at IS NULL
                    AND o.seq > COALESCE((SELECT min(last_seq) FROM relay_offsets), 0)
                    AND NOT (o.lock_id IS NOT NULL AND o.locked_until IS NULL AND o.lock_id <> ALL($1::uuid[])))
  AND CASE c.consumer
        WHEN 'accounting' THEN NOT EXISTS (SELECT 1 FROM ledger_entries l WHERE l.payment_id = p.id)
        ELSE NOT EXISTS (SELECT 1 FROM notifications n WHERE n.payment_id = p.id)
      END
ORDER BY 1, 2
