-- A delivery ahead of its aggregate's next version is parked (S20,
-- engine.ConsumerConfig.ParkGaps): in the consumer's transaction its inbox
-- marker, inserted a statement ago, is taken back (the marker is written
-- when the effect is, by unpark_next) and the event is kept whole. A
-- redelivery of a parked event parks nothing new.
WITH unmarked AS (
    DELETE FROM inbox_messages WHERE consumer_name = $1 AND message_id = $2
)
INSERT INTO parked_messages (consumer_name, message_id, aggregate_id, aggregate_version, event_type, payload, parked_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT DO NOTHING
