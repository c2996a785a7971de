// Package deployui is the screen of `outboxlab live`: the outbox pipeline
// running for real on NATS JetStream (package deploy), drawn live (its
// actors, the database's and the broker's figures) and driven by keys (a
// payment, a crash, a stall, the broker stopped and started). It draws a
// Deployment, the few methods it calls, which *deploy.Deployment
// implements and its tests fake. It shares every screen's look and keys
// (package screen) and the simulator's words (catalog), and nothing else of
// the simulator.
package deployui
