-- A window of payments as the Tables pane draws it: the key first, times as
-- the virtual clock's HH:MM:SS.mmm.
SELECT id::text, right(id::text, 8), client_id, amount_cents::text, currency, version::text,
       to_char(created_at AT TIME ZONE 'UTC', 'HH24:MI:SS.MS')
FROM payments ORDER BY created_at, id OFFSET $1 LIMIT $2
