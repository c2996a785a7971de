-- A relay that stops hands back the rows it leased and did not publish, so
-- any relay claims them again at once instead of when the lease expires. The
-- claim is undone, its attempts increment included: these rows never reached
-- the broker. Only the lease owner releases; a row whose lease another worker
-- took meanwhile is left alone.
UPDATE outbox_messages
SET lock_id = NULL, locked_until = NULL, attempts = attempts - 1
WHERE id = ANY($1) AND lock_id = $2
