// Package slotname says which replication slots are outboxlab's. A server
// given with --database-url is the user's: its other slots (a Debezium's, a
// standby's) carry their own replication, and outboxlab must neither drop
// them nor end the sessions that stream from them. Every slot outboxlab
// makes (the CDC relay's, engine/relay_cdc.go) starts with Prefix, and every
// statement that drops a slot or ends its walsender asks for the prefix, the
// pgoutput plugin and a logical slot. It imports nothing, so the engine,
// pg and the simulator can all share the one constant.
package slotname

// Prefix starts the name of every replication slot outboxlab makes.
const Prefix = "outboxlab_cdc_"

// Ours is the SQL condition that a row of pg_replication_slots is one of
// outboxlab's slots; $1 is Prefix (starts_with: in LIKE, '_' is a wildcard).
const Ours = `starts_with(slot_name, $1) AND plugin = 'pgoutput' AND slot_type = 'logical'`
