-- A window of accounting's effects as the Tables pane draws it.
SELECT id::text, id::text, right(message_id::text, 8), right(payment_id::text, 8), amount_cents::text, currency,
       to_char(created_at AT TIME ZONE 'UTC', 'HH24:MI:SS.MS')
FROM ledger_entries ORDER BY id OFFSET $1 LIMIT $2
