-- Many events in one statement, in the producers' transaction.
INSERT INTO outbox_messages (id, aggregate_type, aggregate_id, aggregate_version, event_type,
                             schema_version, payload, trace_parent, occurred_at, next_attempt_at)
SELECT id, aggregate_type, aggregate_id, aggregate_version, event_type,
       schema_version, payload, trace_parent, $9, $9
FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::int[], $7::jsonb[], $8::text[])
     AS r(id, aggregate_type, aggregate_id, aggregate_version, event_type, schema_version, payload, trace_parent)
