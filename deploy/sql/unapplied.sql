-- unapplied: per consumer ($2), the outbox rows marked published that it
-- has not applied yet (no inbox row), and the seconds since the oldest of
-- them was published, at the deployment's now ($1).
SELECT c.name,
       count(o.id),
       COALESCE(EXTRACT(EPOCH FROM $1 - min(o.published_at)), 0)::float8
FROM unnest($2::text[]) AS c(name)
LEFT JOIN outbox_messages o
       ON o.published_at IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM inbox_messages i WHERE i.consumer_name = c.name AND i.message_id = o.id)
GROUP BY c.name
