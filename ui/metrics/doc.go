// Package metrics is the metrics pane: the S24 figures of the outbox
// pipeline, the age of the oldest pending message first, the one figure
// that says the relay is behind; then pending rows, publishes, attempts,
// dead letters, leases recovered, duplicates ignored and the two
// latencies. The root feeds it what the simulator reports (MetricsMsg) and,
// until it does, the oracle's figures (OraclesMsg).
package metrics
