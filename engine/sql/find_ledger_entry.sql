-- The WRONG check (S18): under READ COMMITTED a concurrent transaction's
-- uncommitted entry is invisible here, so two deliveries can both see 0.
SELECT count(*) FROM ledger_entries WHERE consumer_name = $1 AND message_id = $2
