-- A third party's database, for the external-effects lesson (S19): the card
-- provider a consumer charges over HTTP (package provider). It lives in a
-- schema of its own in the simulation's database, not in memory, so that
-- what it charged is read with SQL like every other figure and a reset
-- empties it with the rest. Nothing of the outbox or the inbox ever writes
-- here: only the provider's HTTP server does.
CREATE SCHEMA provider;

-- Every charge the provider made: one row a charge, whatever the client
-- meant. A payment charged twice is two rows with its payment_id.
CREATE TABLE provider.charges (
    charge_id        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payment_id       uuid        NOT NULL,
    amount_cents     bigint      NOT NULL,
    currency         text        NOT NULL,
    idempotency_key  text,
    charged_at       timestamptz NOT NULL
);
CREATE INDEX provider_charges_payment ON provider.charges (payment_id);

-- The provider's idempotency keys: the first answer to a key, replayed to
-- every later request with that key (and the body it came with, to refuse
-- a key reused for another charge). No foreign key to charges: a reset
-- truncates only the tables a run wrote, and a run that charged without
-- keys writes charges alone.
CREATE TABLE provider.idempotency_keys (
    idempotency_key  text        PRIMARY KEY,
    payment_id       uuid        NOT NULL,
    amount_cents     bigint      NOT NULL,
    currency         text        NOT NULL,
    charge_id        bigint      NOT NULL,
    created_at       timestamptz NOT NULL
);

-- The consumer's second outbox (S19): the charge a consumer decided, in the
-- transaction of its inbox marker, waiting for the sender to make it with
-- the provider. message_id is the event's id, and the provider's
-- Idempotency-Key: a sender that dies after the call sends it again, and
-- the provider answers the first charge.
CREATE TABLE effect_outbox (
    message_id    uuid        PRIMARY KEY,
    consumer_name text        NOT NULL,
    payment_id    uuid        NOT NULL,
    amount_cents  bigint      NOT NULL,
    currency      text        NOT NULL,
    created_at    timestamptz NOT NULL,
    sent_at       timestamptz,
    charge_id     bigint
);
CREATE INDEX effect_outbox_unsent ON effect_outbox (created_at, message_id) WHERE sent_at IS NULL;
