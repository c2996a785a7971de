-- The floor's producer: $3 payments and their outbox rows in one statement
-- (its own transaction), the payload built by the server, no Go work.
WITH p AS (
    INSERT INTO payments (id, client_id, amount_cents, currency, version, trace_parent, created_at)
    SELECT uuidv7(), 'bench', 1250, 'EUR', 1, $2, $1
    FROM generate_series(1, $3)
    RETURNING id, client_id, amount_cents, currency, trace_parent
)
INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type,
                             schema_version, payload, trace_parent, occurred_at, next_attempt_at)
SELECT uuidv7(), 'payment', p.id::text, 1, 'PaymentCreated', 1,
       jsonb_build_object('payment_id', p.id, 'client_id', p.client_id,
                          'amount_cents', p.amount_cents, 'currency', p.currency),
       p.trace_parent, $1, $1
FROM p
