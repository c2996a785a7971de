-- A commit-order lesson, not part of the design the relay follows.
--
-- seq numbers outbox rows in the order their INSERTs ran, not the order their
-- transactions commit: a transaction draws its seq from the identity's
-- sequence at INSERT and may commit long after one that drew a higher seq.
-- The wrong relay (engine.RelayConfig.SeqCursor, as Watermill's early SQL
-- publisher did: Watermill #311) polls WHERE seq > last and keeps last in
-- relay_offsets; a row whose transaction commits after a higher seq was
-- polled is behind that cursor for ever. The right relay never reads seq:
-- it claims every row with published_at IS NULL (claim_batch.sql).
ALTER TABLE outbox_messages ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;

-- Where each seq-cursor relay got to: its cursor survives a restart, as
-- Watermill's offsets table did.
CREATE TABLE relay_offsets (
    relay_name  text   PRIMARY KEY,
    last_seq    bigint NOT NULL
);
