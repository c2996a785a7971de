-- Payments the charging consumer ($1, accounting) applied (its ledger entry
-- committed) that the card
-- provider never charged, and that no unsent row of the second outbox will
-- charge yet (S19). What the broker still holds for accounting is checked by
-- the caller: a delivery not ACKed may still make its call.
SELECT l.payment_id::text
FROM ledger_entries l
WHERE l.consumer_name = $1
  AND NOT EXISTS (SELECT 1 FROM provider.charges c WHERE c.payment_id = l.payment_id)
  AND NOT EXISTS (SELECT 1 FROM effect_outbox e WHERE e.payment_id = l.payment_id AND e.sent_at IS NULL)
ORDER BY 1
