-- The simulator's lease witness, installed on each pipeline's database (not
-- part of the design it teaches): every time a row's lock_id changes to a new
-- worker, PostgreSQL itself records the lease it replaced. A double lease is
-- then read from what the table held at the claim, whatever statement took
-- it, not from a memory of claims: a lease given back (a mark, a retry, a dead
-- letter, release_leases all set lock_id to NULL) leaves no previous owner.
CREATE TABLE IF NOT EXISTS outboxlab_lease_claims (
    seq               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id        uuid        NOT NULL,
    lock_id           uuid        NOT NULL,
    locked_until      timestamptz,
    prev_lock_id      uuid,
    prev_locked_until timestamptz
);

CREATE OR REPLACE FUNCTION outboxlab_witness_lease() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO outboxlab_lease_claims (message_id, lock_id, locked_until, prev_lock_id, prev_locked_until)
    VALUES (NEW.id, NEW.lock_id, NEW.locked_until, OLD.lock_id, OLD.locked_until);
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER outboxlab_witness_lease
    AFTER UPDATE OF lock_id ON outbox_messages
    FOR EACH ROW
    WHEN (NEW.lock_id IS NOT NULL AND NEW.lock_id IS DISTINCT FROM OLD.lock_id)
    EXECUTE FUNCTION outboxlab_witness_lease();

TRUNCATE outboxlab_lease_claims;
