-- The relay's logical slot with pgoutput, made once: it survives the relay's
-- crashes (that is what lets a restart resume), so it exists from before the
-- first request it must stream. Making one waits for transactions already
-- open to end (it needs a consistent starting point).
SELECT count(*)
FROM (SELECT pg_create_logical_replication_slot($1, 'pgoutput')
      WHERE NOT EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = $1)) AS made
