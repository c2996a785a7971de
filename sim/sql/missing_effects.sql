-- Per consumer, payments without that consumer's effect whose event is not
-- pending in the outbox; dead says an event of the payment is dead-lettered
-- (counted there, not as lost). What the broker still holds is checked by the
-- caller.
SELECT p.id::text, c.consumer,
       EXISTS (SELECT 1 FROM outbox_messages o WHERE o.aggregate_id = p.id::text AND o.dead_lettered_at IS NOT NULL) AS dead
FROM payments p
CROSS JOIN (VALUES ('accounting'), ('notifications')) AS c(consumer)
WHERE NOT EXISTS (SELECT 1 FROM outbox_messages o WHERE o.aggregate_id = p.id::text AND o.published_at IS NULL AND o.dead_lettered_at IS NULL)
  AND CASE c.consumer
        WHEN 'accounting' THEN NOT EXISTS (SELECT 1 FROM ledger_entries l WHERE l.payment_id = p.id)
        ELSE NOT EXISTS (SELECT 1 FROM notifications n WHERE n.payment_id = p.id)
      END
ORDER BY 1, 2
