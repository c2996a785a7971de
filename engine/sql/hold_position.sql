-- Before a consumer parks an aggregate's event with no position yet (S20):
-- write the position it read (0) so that it holds the row until it commits.
-- Read with no row, nothing was locked: the delivery of version 1, applied
-- at the same moment by another instance of the consumer, could look for
-- parked events before this one's park commits and leave it parked for
-- ever. With the row held, its advance waits for this park; if it came
-- first, this insert waits for it and the position is read again.
INSERT INTO consumer_positions (consumer_name, aggregate_id, last_version)
VALUES ($1, $2, 0)
ON CONFLICT (consumer_name, aggregate_id) DO NOTHING
