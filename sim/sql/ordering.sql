-- S20's figures, from what each consumer's tables hold. out_of_order: per
-- consumer, inbox markers (the effects it applied, each at its
-- processed_at) of an aggregate's event applied before an earlier version
-- of the same aggregate was: the join to outbox_messages gives each its
-- aggregate and version. parked: events a parking consumer holds ahead of
-- their version now.
SELECT
  (SELECT count(*)
   FROM inbox_messages i
   JOIN outbox_messages o ON o.id = i.message_id
   WHERE EXISTS (
       SELECT 1
       FROM inbox_messages j
       JOIN outbox_messages e ON e.id = j.message_id
       WHERE j.consumer_name = i.consumer_name
         AND e.aggregate_type = o.aggregate_type
         AND e.aggregate_id = o.aggregate_id
         AND e.aggregate_version < o.aggregate_version
         AND j.processed_at > i.processed_at)),
  (SELECT count(*) FROM parked_messages)
