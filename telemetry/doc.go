// Package telemetry serves the simulator's figures to Prometheus (GET
// /metrics): the nine of S24 under Prometheus' naming conventions, labelled
// by pipeline and, where the database can say it, by consumer. Nothing is
// kept beside the simulation but the last read: a scrape reads the
// engine's counters and the pipelines' databases as they are then, so a
// rewind shows what PostgreSQL holds then, as the screen does. A read
// that does not end within a scrape's short deadline (a table locked, the
// simulation busy) goes on in the background while the scrape answers
// with the last good read, its age (outboxlab_figures_age_seconds) and
// outboxlab_up saying how current it is (reading.go).
//
// The simulator's clock is virtual (it moves only when the simulator
// advances it): ages and latencies are in virtual seconds, and
// outboxlab_virtual_time_seconds says where that clock is. rate() over a
// counter is per wall-clock second.
//
// A rewind, a reset or another scene starts the figures over: the counters
// fall to what the replayed run has counted. Prometheus takes a fall as a
// counter reset (rate() and increase() go on from the new value; a rewind
// makes increase() count the replayed run's figures as new), each counter
// and histogram carries the run's start as its created timestamp (in the
// protobuf and OpenMetrics formats), and outboxlab_run_resets_total and
// outboxlab_run_start_time_seconds say when it happened.
package telemetry
