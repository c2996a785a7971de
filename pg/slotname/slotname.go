package slotname

// Prefix starts the name of every replication slot outboxlab makes.
const Prefix = "outboxlab_cdc_"

// Ours is the SQL condition that a row of pg_replication_slots is one of
// outboxlab's slots; $1 is Prefix (starts_with: in LIKE, '_' is a wildcard).
const Ours = `starts_with(slot_name, $1) AND plugin = 'pgoutput' AND slot_type = 'logical'`
