// Package deploy runs the engine as a deployment would, for `outboxlab
// serve --http --broker nats` and `outboxlab live`: no simulator and no virtual clock, the
// system clock, relays woken by LISTEN/NOTIFY, consumers pulling from a real
// broker, each in its own goroutine for as long as the context lives, and
// the HTTP API's POST /payments an engine.Writer on the same database.
// The step-by-step simulator keeps the in-process broker: only it can be
// paused between two statements on a clock that waits.
package deploy
