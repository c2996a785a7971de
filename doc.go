// Command outboxlab is a terminal simulator of reliable event delivery: it
// boots an embedded PostgreSQL and runs a real transactional outbox, relay,
// broker and inbox against it while the learner pauses, steps and breaks them.
// Its command line is package cli.
package main
