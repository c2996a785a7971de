-- The provider answered: the second outbox's row is done.
UPDATE effect_outbox
SET sent_at = $2, charge_id = $3
WHERE message_id = $1 AND sent_at IS NULL
