-- Rows in parked_messages: events a parking consumer holds ahead of their version (S20).
SELECT count(*) FROM parked_messages
