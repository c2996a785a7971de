-- What a step receives up to: a marker written in the WAL as the step
-- starts. A transactional logical message commits (synchronous_commit on,
-- so flushed) after every transaction that committed before the step, and
-- the walsender reaches its end only after sending them all: then it has
-- streamed what the step must receive. pgoutput passes messages over (its
-- messages option is off). The flush position alone is no such mark: it
-- may fall inside a record the walsender cannot send until the rest of it
-- is flushed.
SELECT pg_logical_emit_message(true, 'outboxlab_cdc', '')::text
