-- Double leases (S9, S10): claims that took a row while another worker's
-- lease on it was still running. A claim sets locked_until = its now + the
-- lease ($1), so its moment is locked_until - $1; the lease it replaced was
-- still held if that lease ended after that moment.
SELECT count(*),
       min(message_id::text)
FROM outboxlab_lease_claims
WHERE prev_lock_id IS NOT NULL
  AND prev_lock_id <> lock_id
  AND prev_locked_until > locked_until - $1::interval
