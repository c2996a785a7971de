-- A window of relay_offsets as the Tables pane draws it: where each
-- seq-cursor relay's cursor stands (empty with the right relay, which keeps
-- no position). The key changes as the cursor moves.
SELECT relay_name || ':' || last_seq, relay_name, last_seq::text
FROM relay_offsets ORDER BY relay_name OFFSET $1 LIMIT $2
