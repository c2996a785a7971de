-- Run's wake-up channel: notify_outbox signals it from the writers' commits.
LISTEN outbox_messages
