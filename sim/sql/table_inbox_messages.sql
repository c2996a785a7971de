-- A window of the inbox as the Tables pane draws it.
SELECT consumer_name || ':' || message_id::text, consumer_name, right(message_id::text, 8),
       to_char(processed_at AT TIME ZONE 'UTC', 'HH24:MI:SS.MS')
FROM inbox_messages ORDER BY processed_at, consumer_name, message_id OFFSET $1 LIMIT $2
