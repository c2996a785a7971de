-- Rows in ledger_entries, for the Tables pane's header.
SELECT count(*) FROM ledger_entries
