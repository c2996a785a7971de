-- The latest lease still running on the rows of a crashed relay's batch: how
-- long its leases stay in the table ($2 is the virtual now).
SELECT max(locked_until) FROM outbox_messages WHERE id = ANY($1) AND published_at IS NULL AND locked_until > $2
