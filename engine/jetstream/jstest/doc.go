// Package jstest starts real NATS servers for tests: a JetStream cluster of
// several servers in this process, each with its own store and client port,
// routed to each other on loopback, so a test can kill one (the leader of a
// stream) and watch the others carry on.
package jstest
