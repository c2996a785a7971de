package telemetry

import (
	"context"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// SimulationTracing is a simulator's OpenTelemetry: one TracerProvider for
// every simulation a screen builds, a recorder that keeps the current run's
// spans (the screen draws a message's trace from it), span and trace ids
// reseeded with each run so a replay makes the same traces, and, given a
// collector's address, an exporter to it.
type SimulationTracing struct {
	// Recorder holds the current run's ended spans.
	Recorder *TraceRecorder
	ids      *IDGenerator
	tp       *sdktrace.TracerProvider
}

// NewSimulationTracing sets a simulator's tracing up; otlp, when not empty,
// is the collector's address, whose failures go to onError (a screen drops
// them: a collector that is down must not write under it).
func NewSimulationTracing(ctx context.Context, otlp string, onError func(error)) (*SimulationTracing, error) {
	t := &SimulationTracing{Recorder: NewTraceRecorder(0), ids: NewIDGenerator(0)}
	cfg := TracingConfig{Recorder: t.Recorder, IDs: t.ids}
	if otlp != "" {
		exp, err := NewOTLPExporter(ctx, otlp, onError)
		if err != nil {
			return nil, err
		}
		cfg.Exporter = exp
	}
	t.tp = NewTracerProvider(cfg)
	return t, nil
}

// Provider is what a simulation traces through.
func (t *SimulationTracing) Provider() trace.TracerProvider { return t.tp }

// Restart begins a run: the recorder emptied, the ids reseeded with the
// run's seed.
func (t *SimulationTracing) Restart(seed uint64) {
	t.Recorder.Reset()
	t.ids.Reseed(seed)
}

// Shutdown flushes the exporter, if any, and ends the provider.
func (t *SimulationTracing) Shutdown(ctx context.Context) error { return t.tp.Shutdown(ctx) }
