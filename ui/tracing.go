package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/telemetry"
	"go.opentelemetry.io/otel/codes"
)

// tracing is the simulator's OpenTelemetry, set up by telemetry: one
// TracerProvider for every simulation the TUI builds, a recorder whose
// spans the story pane's trace view draws, and with --otlp an exporter.
type tracing struct {
	t *telemetry.SimulationTracing
}

func newTracing(ctx context.Context, otlp string) (*tracing, error) {
	// A collector that is down must not write under the screen: its
	// failures are dropped; the spans stay on screen all the same.
	t, err := telemetry.NewSimulationTracing(ctx, otlp, func(error) {})
	if err != nil {
		return nil, badinput.Errorf("--otlp %s: %w", otlp, err)
	}
	return &tracing{t: t}, nil
}

// sim is what a simulation's Config takes.
func (t *tracing) sim() sim.Tracing {
	if t == nil {
		return sim.Tracing{}
	}
	return sim.Tracing{Provider: t.t.Provider(), Restart: t.t.Restart}
}

// shutdown flushes the exporter, if any.
func (t *tracing) shutdown() error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return t.t.Shutdown(ctx)
}

// traceLines draws an event's trace as a tree: each span a line with its
// actor, its start in virtual time from the trace's start and its duration;
// a span of another trace that links in (a consumer's transaction, the
// relay's claim) is marked ↪, a failed one ✗, a duplicate the inbox
// recognised "duplicate". nil when the recorder holds nothing of it.
func (t *tracing) traceLines(eventID string, w *catalog.Printer) []string {
	if t == nil {
		return nil
	}
	id, ok := t.t.Recorder.TraceOf(eventID)
	if !ok {
		return nil
	}
	tr := t.t.Recorder.Trace(id)
	if len(tr.Roots) == 0 {
		return nil
	}
	out := []string{w.T("trace %s · %d spans · %s in virtual time", id.String(), tr.Spans, tr.End.Sub(tr.Start).Round(time.Microsecond).String())}
	tr.Walk(func(n *telemetry.SpanNode, depth int) {
		mark := "•"
		switch {
		case n.Via == telemetry.ViaLink:
			mark = "↪"
		case n.Status == codes.Error:
			mark = "✗"
		}
		line := fmt.Sprintf("%s%s %s", strings.Repeat("  ", depth), mark, n.Name)
		var notes []string
		if n.Actor != "" {
			notes = append(notes, n.Actor)
		}
		notes = append(notes, fmt.Sprintf("+%s", n.Offset.Round(time.Microsecond)))
		// Every span here ended: the recorder keeps only ended spans, and a
		// crash leaves its span unexported (engine.endSpan). A span of no
		// duration is work the virtual clock did not move through, not a
		// crash.
		notes = append(notes, n.Duration.Round(time.Microsecond).String())
		if n.Attr(engine.AttrDuplicate).AsBool() {
			notes = append(notes, w.T("duplicate (the inbox knew it)"))
		}
		if n.Status == codes.Error && n.StatusMessage != "" {
			notes = append(notes, n.StatusMessage)
		}
		out = append(out, line+"  "+strings.Join(notes, " · "))
	})
	return out
}
