-- Rows in outbox_messages, for the Tables pane's header.
SELECT count(*) FROM outbox_messages
