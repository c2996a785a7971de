-- The business row (S7). version starts at 1: the aggregate_version of its first event.
INSERT INTO payments (id, client_id, amount_cents, currency, version, trace_parent, created_at)
VALUES ($1, $2, $3, $4, 1, $5, $6)
