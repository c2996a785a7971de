-- The database side of the S24 figures, in one scan-light statement.
SELECT
    (SELECT count(*) FROM outbox_messages
      WHERE published_at IS NULL AND dead_lettered_at IS NULL) AS pending,
    (SELECT min(occurred_at) FROM outbox_messages
      WHERE published_at IS NULL AND dead_lettered_at IS NULL) AS oldest_pending,
    (SELECT count(*) FROM outbox_messages WHERE dead_lettered_at IS NOT NULL) AS dead_lettered,
    (SELECT count(*) FROM outbox_messages WHERE published_at > $1 AND published_at <= $2) AS published_in_window,
    (SELECT coalesce(avg(attempts), 0)::float8 FROM outbox_messages WHERE published_at IS NOT NULL) AS attempts_per_message
