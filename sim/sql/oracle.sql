-- Every database figure of the oracle in one round trip (what psql would
-- count): payments, outbox rows by state, effects, phantom and duplicate
-- effects with an example id of each. Pending is the one definition
-- missing_effects.sql uses too: unpublished, not dead-lettered, and some
-- relay can still publish it ($1: the workers of the relays alive). A row
-- behind every seq cursor, or leased with no end by a worker no relay alive
-- has, is not pending: nobody will ever publish it, and its payment's
-- events are lost (lost_events), never both.
SELECT
  (SELECT count(*) FROM payments),
  (SELECT count(*) FROM outbox_messages),
  (SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL),
  (SELECT count(*) FROM ledger_entries),
  (SELECT count(*) FROM notifications),
  (SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL),
  (SELECT count(*) FROM outbox_messages o WHERE o.published_at IS NULL AND o.dead_lettered_at IS NULL
     AND o.seq > COALESCE((SELECT min(last_seq) FROM relay_offsets), 0)
     AND NOT (o.lock_id IS NOT NULL AND o.locked_until IS NULL AND o.lock_id <> ALL($1::uuid[]))),
  (SELECT COALESCE(max(attempts), 0) FROM outbox_messages),
  (SELECT min(o.occurred_at) FROM outbox_messages o WHERE o.published_at IS NULL AND o.dead_lettered_at IS NULL
     AND o.seq > COALESCE((SELECT min(last_seq) FROM relay_offsets), 0)
     AND NOT (o.lock_id IS NOT NULL AND o.locked_until IS NULL AND o.lock_id <> ALL($1::uuid[]))),
  (SELECT count(*) FROM (SELECT payment_id FROM ledger_entries UNION ALL SELECT payment_id FROM notifications) e
     WHERE NOT EXISTS (SELECT 1 FROM payments p WHERE p.id = e.payment_id)),
  (SELECT min(e.message_id::text) FROM (SELECT message_id, payment_id FROM ledger_entries UNION ALL SELECT message_id, payment_id FROM notifications) e
     WHERE NOT EXISTS (SELECT 1 FROM payments p WHERE p.id = e.payment_id)),
  (SELECT COALESCE(sum(n - 1), 0) FROM (
     SELECT count(*) AS n FROM ledger_entries GROUP BY consumer_name, message_id HAVING count(*) > 1
     UNION ALL
     SELECT count(*) FROM notifications GROUP BY consumer_name, message_id HAVING count(*) > 1) d),
  (SELECT min(message_id::text) FROM (
     SELECT message_id FROM ledger_entries GROUP BY consumer_name, message_id HAVING count(*) > 1
     UNION ALL
     SELECT message_id FROM notifications GROUP BY consumer_name, message_id HAVING count(*) > 1) d)
