package sim

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Tracing the actors changes nothing the simulation shows: the same scene
// gives the same timeline with spans recorded, every actor's spans among
// them, and Restart hears each run's seed (a rewind's replay included).
func TestTracingLeavesTheRunAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sc := builtin(t, "crash-after-publish")
	plain := timelineJSON(t, session(t, sc).Sim().Timeline(0))

	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	var restarts []uint64
	se, err := NewSession(ctx, Config{Server: serverFor(t, sc.Settings, sc.Steps), Settings: sc.Settings, DBPrefix: prefix(),
		Tracing: Tracing{Provider: tp, Restart: func(seed uint64) { restarts = append(restarts, seed) }}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(se.Close)
	playSteps(t, se, sc.Steps)
	if traced := timelineJSON(t, se.Sim().Timeline(0)); traced != plain {
		t.Errorf("tracing changed the timeline: %s", firstDiff(plain, traced))
	}
	actors := map[string]bool{}
	for _, s := range rec.Ended() {
		for _, a := range s.Attributes() {
			if a.Key == "outboxlab.actor" {
				actors[a.Value.AsString()] = true
			}
		}
	}
	for _, a := range []string{"api", "relay-1", "accounting", "notifications"} {
		if !actors[a] {
			t.Errorf("no span of %s among %d (actors %v)", a, len(rec.Ended()), actors)
		}
	}
	if _, err := se.Back(ctx); err != nil {
		t.Fatal(err)
	}
	if len(restarts) < 2 || restarts[0] != sc.Settings.Seed || restarts[len(restarts)-1] != sc.Settings.Seed {
		t.Errorf("Restart heard %v, want the seed %d at the start and at the rewind", restarts, sc.Settings.Seed)
	}
}
