-- Pending rows leased with no end (lease: forever, the wrong way) by a worker
-- that is no relay alive now ($1): it died holding them, its restart is a new
-- worker, and a lease with no end is never free again, so nobody will ever
-- publish them. With lease expiry (the right way) there are none.
SELECT count(*), min(id::text)::uuid
FROM outbox_messages
WHERE published_at IS NULL AND dead_lettered_at IS NULL
  AND lock_id IS NOT NULL AND locked_until IS NULL
  AND lock_id <> ALL($1::uuid[])
