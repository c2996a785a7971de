-- snapshot: a deployment's outbox as psql would count it. $1 is the
-- deployment's now (never now() here: time is a parameter), for the age of
-- the oldest row still waiting to be published.
SELECT
    (SELECT count(*) FROM payments) AS payments,
    (SELECT count(*) FROM outbox_messages
      WHERE published_at IS NULL AND dead_lettered_at IS NULL) AS pending,
    (SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL) AS published,
    (SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL) AS dead,
    (SELECT count(*) FROM outbox_messages WHERE attempts > 1) AS retried,
    (SELECT coalesce(avg(attempts), 0)::float8 FROM outbox_messages
      WHERE published_at IS NOT NULL) AS attempts_per_published,
    (SELECT coalesce(greatest(extract(epoch FROM $1::timestamptz - min(occurred_at)), 0), 0)::float8
       FROM outbox_messages
      WHERE published_at IS NULL AND dead_lettered_at IS NULL) AS oldest_pending_seconds
