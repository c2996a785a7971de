-- kept: what a deployment started again finds from its last run: its
-- payments, and the outbox rows not published yet (the relays publish
-- them now).
SELECT (SELECT count(*) FROM payments),
       (SELECT count(*) FROM outbox_messages WHERE published_at IS NULL AND dead_lettered_at IS NULL)
