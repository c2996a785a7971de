-- Undo, inside the same transaction, the markers of deliveries refused for
-- their version, so their redelivery is processed.
DELETE FROM inbox_messages WHERE consumer_name = $1 AND message_id = ANY($2)
