-- Rows in inbox_messages, for the Tables pane's header.
SELECT count(*) FROM inbox_messages
