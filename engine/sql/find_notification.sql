-- The WRONG check (S18), as find_ledger_entry.
SELECT count(*) FROM notifications WHERE consumer_name = $1 AND message_id = $2
