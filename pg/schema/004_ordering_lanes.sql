-- Per-key ordering (S20, issue 16 item 5): what the relay's ordering
-- policies and the parking consumer keep.
--
-- The lanes of a partitioning relay (engine.OrderingPartition): every relay
-- that has claimed once is a member, and its lane is its index among the
-- members by name. A second relay joining is a rebalance: the count of lanes
-- changes, so aggregates move between lanes. A member never leaves in this
-- lesson: a relay that stops keeps its lane, and its aggregates wait for it.
CREATE TABLE relay_lanes (
    relay_name  text        PRIMARY KEY,
    joined_at   timestamptz NOT NULL
);

-- The ordering claims ask, for each candidate, whether an earlier version of
-- its aggregate is still unpublished: this index answers that without
-- reading the aggregate's published history.
CREATE INDEX outbox_messages_aggregate_unpublished_idx
    ON outbox_messages (aggregate_type, aggregate_id, aggregate_version)
    WHERE published_at IS NULL AND dead_lettered_at IS NULL;

-- Events a parking consumer received ahead of their version
-- (engine.ConsumerConfig.ParkGaps): written in the consumer's transaction
-- and ACKed, applied in the transaction of the version that fills the gap.
-- A parked event has no inbox marker yet: the marker is written when its
-- effect is, so the inbox's processed_at says when each effect happened.
CREATE TABLE parked_messages (
    consumer_name      text        NOT NULL,
    message_id         uuid        NOT NULL,
    aggregate_id       text        NOT NULL,
    aggregate_version  bigint      NOT NULL,
    event_type         text        NOT NULL,
    payload            jsonb       NOT NULL,
    parked_at          timestamptz NOT NULL,
    PRIMARY KEY (consumer_name, message_id)
);

CREATE INDEX parked_messages_next_idx
    ON parked_messages (consumer_name, aggregate_id, aggregate_version);
