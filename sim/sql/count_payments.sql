-- Rows in payments, for the Tables pane's header.
SELECT count(*) FROM payments
