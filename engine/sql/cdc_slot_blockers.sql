-- Who keeps the CDC relay's slot from being made: making a logical slot
-- waits until every transaction that held a transaction id when it began
-- has ended (from there on every transaction decodes whole). $1 is how long
-- it waited: a blocker has been open at least that long. The query is cut
-- short; a session may run anything.
SELECT pid, COALESCE(state, ''), left(regexp_replace(query, '\s+', ' ', 'g'), 60)
FROM pg_stat_activity
WHERE backend_xid IS NOT NULL
  AND pid <> pg_backend_pid()
  AND xact_start <= statement_timestamp() - $1::interval
ORDER BY xact_start, pid
