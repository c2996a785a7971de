-- The CDC relay reads nothing from the outbox: published_at is written only
-- for retention (S23) and for what psql and the figures show. No lease to
-- check: no other worker takes these rows.
UPDATE outbox_messages
SET published_at = $2
WHERE id = ANY($1)
  AND published_at IS NULL
RETURNING id
