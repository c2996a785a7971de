-- Sent inside the writing transaction: PostgreSQL delivers it only if the
-- transaction commits, and folds repeats within one transaction into one.
NOTIFY outbox_messages
