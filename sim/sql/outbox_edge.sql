-- Pending rows on the postgres → relay edge: ready (not leased, or the lease
-- ended) and leased now ($1 is the virtual now).
SELECT count(*) FILTER (WHERE locked_until IS NULL OR locked_until <= $1),
       count(*) FILTER (WHERE locked_until > $1)
FROM outbox_messages WHERE published_at IS NULL AND dead_lettered_at IS NULL
