-- Expired leases recovered (S24): claims that took a row from another
-- worker whose lease had ended (the lease witness). A claim sets
-- locked_until = its now + the lease ($1), so its moment is locked_until -
-- $1; the lease it replaced had ended by then. A takeover of a lease still
-- running is a double lease instead (double_leases.sql).
SELECT count(*)
FROM outboxlab_lease_claims
WHERE prev_lock_id IS NOT NULL
  AND prev_lock_id <> lock_id
  AND prev_locked_until <= locked_until - $1::interval
