-- A window of the outbox as the Tables pane draws it. The key changes with
-- attempts, lease, publication and dead letter, so a changed row stands out.
-- seq is the order the INSERTs ran in (the commit-order lesson); a lease with
-- no end (lease: forever) shows as ∞. An id inside last_error is shown as the
-- id column shows it, its last 8 characters: whole, the error did not fit
-- beside the columns a lesson names with it (att, next attempt).
SELECT id::text || ':' || attempts || ':' || COALESCE(lock_id::text, '') || ':' || COALESCE(published_at::text, '') || ':' || COALESCE(dead_lettered_at::text, ''),
       right(id::text, 8), seq::text, right(aggregate_id, 8), aggregate_version::text, attempts::text,
       COALESCE(right(lock_id::text, 8), '-'),
       CASE WHEN lock_id IS NOT NULL AND locked_until IS NULL THEN '∞'
            ELSE COALESCE(to_char(locked_until AT TIME ZONE 'UTC', 'HH24:MI:SS'), '-') END,
       to_char(next_attempt_at AT TIME ZONE 'UTC', 'HH24:MI:SS'),
       COALESCE(to_char(published_at AT TIME ZONE 'UTC', 'HH24:MI:SS'), '-'),
       COALESCE(to_char(dead_lettered_at AT TIME ZONE 'UTC', 'HH24:MI:SS'), '-'),
       COALESCE(regexp_replace(last_error, '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}([0-9a-f]{8})', '\1', 'g'), '')
FROM outbox_messages ORDER BY occurred_at, id OFFSET $1 LIMIT $2
