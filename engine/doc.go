// Package engine is the subject outboxlab teaches: a transactional outbox
// writer, a leasing relay, an in-process broker with real at-least-once
// semantics, inbox consumers, the naive dual writer they are compared with,
// retention and metrics, all running against a real PostgreSQL.
//
// Every actor owns its connection(s), reads time only from a Clock, draws
// jitter only from a seeded *rand.Rand, runs only named SQL statements, and
// calls a Hook at named checkpoints so a simulator can pause, step or kill it
// there. Killing is real: the actor's socket is closed without COMMIT.
package engine
