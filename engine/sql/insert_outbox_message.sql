-- The event, in the same transaction as the business row (S5, S7). next_attempt_at
-- = occurred_at: ready for the relay as soon as the transaction commits.
INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type,
                             schema_version, payload, trace_parent, occurred_at, next_attempt_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
