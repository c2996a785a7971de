-- Only the lease owner marks (S12): a row whose lease another worker took is
-- left alone and missing from RETURNING. RETURNING gives each row's event
-- time with its mark, the one "occurred → published" sample of the row.
UPDATE outbox_messages
SET published_at = $3, lock_id = NULL, locked_until = NULL, last_error = NULL
WHERE id = ANY($1) AND lock_id = $2
RETURNING id, published_at, occurred_at
