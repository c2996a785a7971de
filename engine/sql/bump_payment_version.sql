-- A later event on an existing payment: the row lock orders concurrent
-- writers, so each event of one aggregate gets the next version.
UPDATE payments SET version = version + 1
WHERE id = $1
RETURNING version, client_id, amount_cents, currency
