-- Retention (S23): inbox markers older than the horizon, in small batches. The
-- horizon must exceed the longest redelivery window, or an old message comes
-- back as new.
DELETE FROM inbox_messages
WHERE (consumer_name, message_id) IN (
    SELECT consumer_name, message_id FROM inbox_messages
    WHERE processed_at < $1
    ORDER BY processed_at
    LIMIT $2
)
