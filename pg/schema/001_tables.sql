-- The tables outboxlab teaches with. Column names follow the design (S5, S6):
-- a learner reads them in the TUI exactly as they are written here.

-- The business row the API creates (S7).
CREATE TABLE payments (
    id            uuid        PRIMARY KEY,
    client_id     text        NOT NULL,
    amount_cents  bigint      NOT NULL CHECK (amount_cents > 0),
    currency      text        NOT NULL,
    version       bigint      NOT NULL DEFAULT 1,
    trace_parent  text,
    created_at    timestamptz NOT NULL
);

-- HTTP Idempotency-Key (S3, S21): the unique (client_id, key) row is the arbiter
-- of "same logical request"; it commits in the same transaction as the payment
-- and its outbox row, so it exists if and only if they do.
CREATE TABLE idempotency_keys (
    client_id     text        NOT NULL,
    key           text        NOT NULL,
    request_hash  bytea       NOT NULL,
    payment_id    uuid        NOT NULL,
    event_id      uuid        NOT NULL,
    status_code   integer     NOT NULL,
    response      jsonb       NOT NULL,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (client_id, key)
);

-- The transactional outbox (S5). id is the event id: made once, kept by every
-- retry and by a requeue, and used by consumers as the deduplication key.
CREATE TABLE outbox_messages (
    id                uuid        PRIMARY KEY,
    aggregate_type    text        NOT NULL,
    aggregate_id      text        NOT NULL,
    aggregate_version bigint      NOT NULL,
    event_type        text        NOT NULL,
    schema_version    integer     NOT NULL DEFAULT 1,
    payload           jsonb       NOT NULL,
    trace_parent      text,
    occurred_at       timestamptz NOT NULL,
    published_at      timestamptz,
    attempts          integer     NOT NULL DEFAULT 0,
    next_attempt_at   timestamptz NOT NULL,
    lock_id           uuid,
    locked_until      timestamptz,
    last_error        text,
    dead_lettered_at  timestamptz
);

-- Only rows that may still be published are indexed: the relay's claim walks
-- this small index in (occurred_at, id) order, and published or dead-lettered
-- rows (the vast majority over time) cost the claim nothing.
CREATE INDEX outbox_messages_ready_idx
    ON outbox_messages (occurred_at, id)
    WHERE published_at IS NULL AND dead_lettered_at IS NULL;

-- Retention (S23) deletes published rows by age.
CREATE INDEX outbox_messages_published_idx
    ON outbox_messages (published_at)
    WHERE published_at IS NOT NULL;

-- The inbox (S6): one row per (consumer, message). The primary key, not a
-- SELECT, decides whether a delivery is new: two consumers each process their
-- own copy once.
CREATE TABLE inbox_messages (
    consumer_name  text        NOT NULL,
    message_id     uuid        NOT NULL,
    processed_at   timestamptz NOT NULL,
    PRIMARY KEY (consumer_name, message_id)
);

CREATE INDEX inbox_messages_processed_idx ON inbox_messages (processed_at);

-- The last aggregate_version each consumer applied per aggregate (S20), updated
-- in the consumer's transaction, so a gap or a step back is detected.
CREATE TABLE consumer_positions (
    consumer_name  text   NOT NULL,
    aggregate_id   text   NOT NULL,
    last_version   bigint NOT NULL,
    PRIMARY KEY (consumer_name, aggregate_id)
);

-- accounting's effect. Deliberately no unique constraint on message_id: the
-- inbox is what must prevent a second entry, and the wrong consumer variant
-- (SELECT then INSERT) must be able to show the double entry it causes.
CREATE TABLE ledger_entries (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    consumer_name text        NOT NULL,
    message_id    uuid        NOT NULL,
    payment_id    uuid        NOT NULL,
    amount_cents  bigint      NOT NULL,
    currency      text        NOT NULL,
    created_at    timestamptz NOT NULL
);

CREATE INDEX ledger_entries_message_idx ON ledger_entries (message_id);

-- notifications' effect: a second consumer of the same event (S6).
CREATE TABLE notifications (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    consumer_name text        NOT NULL,
    message_id    uuid        NOT NULL,
    payment_id    uuid        NOT NULL,
    body          text        NOT NULL,
    created_at    timestamptz NOT NULL
);

CREATE INDEX notifications_message_idx ON notifications (message_id);
