-- Rows in notifications, for the Tables pane's header.
SELECT count(*) FROM notifications
