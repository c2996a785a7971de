-- synchronous_commit = off for this transaction only (see Relay.mark for why it is safe).
SELECT set_config('synchronous_commit', 'off', true)
