// Package slotname says which replication slots are outboxlab's. A server
// given with --database-url is the user's: its other slots (a Debezium's, a
// standby's) carry their own replication, and outboxlab must neither drop
// them nor end the sessions that stream from them. Every slot outboxlab
// makes (the CDC relay's, engine/relay_cdc.go) starts with Prefix, and every
// statement that drops a slot or ends its walsender asks for the prefix, the
// pgoutput plugin and a logical slot. It imports nothing, so the engine,
// pg and the simulator can all share the one constant.
package slotname
