-- A message's attempts, as a requeue left them.
SELECT attempts FROM outbox_messages WHERE id = $1
