-- What a drain watches for progress: a round that changes none of these
-- changed nothing a later round could build on (a refused redelivery leaves
-- them all as they were; a retry bumps attempts).
SELECT (SELECT count(*) FROM payments),
       (SELECT count(*) FROM outbox_messages),
       (SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL),
       (SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL),
       (SELECT COALESCE(sum(attempts), 0) FROM outbox_messages),
       (SELECT count(*) FROM inbox_messages),
       (SELECT count(*) FROM ledger_entries) + (SELECT count(*) FROM notifications)
