package sim

import (
	"context"
	"testing"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/scenes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// S22 with spans recorded: the relay's header then carries its publish
// span's context, a child of the event's, so its trace id is still the
// payment's and the trace-id inbox suppresses the capture as it does
// untraced. suppressed_effects counts nothing the broker still holds: with
// both events published and queued, every effect is missing and none is
// suppressed; once drained, the capture's, once per consumer.
func TestTraceIDInboxSuppressesTheCapture(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sc := builtin(t, "trace-is-not-an-id")
	set, ok := sc.Variants["trace-id"]
	if !ok {
		t.Fatal("trace-is-not-an-id has no trace-id variant")
	}
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	se, err := NewSession(ctx, Config{Server: serverFor(t, set, sc.Steps), Settings: set, DBPrefix: prefix(), Tracing: Tracing{Provider: tp}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(se.Close)
	figures := func(when string, want map[string]int64) Oracle {
		t.Helper()
		oracles, err := se.Sim().Oracles(ctx)
		if err != nil {
			t.Fatal(err)
		}
		o := oracles[0]
		for name, w := range want {
			if got, _ := o.Figure(name); got != w {
				t.Errorf("%s: %s = %d, want %d", when, name, got, w)
			}
		}
		return o
	}
	playSteps(t, se, []scenes.Step{{Cmd: "request"}, {Cmd: "capture"}, {Cmd: "finish", Args: []string{"api"}}, {Cmd: "finish", Args: []string{"relay-1"}}})
	figures("published, not delivered", map[string]int64{"published": 2, "effects": 0, "suppressed_effects": 0, "lost_events": 0})
	playSteps(t, se, []scenes.Step{{Cmd: "drain"}})
	o := figures("drained", map[string]int64{"duplicates_delivered": 0, "duplicates_ignored": 2, "effects": 2, "suppressed_effects": 2, "lost_events": 0, "duplicate_effects": 0})

	var captureID string
	for _, e := range se.Sim().Timeline(0) {
		if e.Checkpoint == string(engine.ConsumerDuplicate) && len(e.MessageIDs) == 1 {
			captureID = e.MessageIDs[0]
		}
	}
	if captureID == "" || o.SuppressedExample != captureID {
		t.Errorf("the example of a suppressed effect is %q, want the capture taken for a duplicate (%q)", o.SuppressedExample, captureID)
	}
	// Every process span links to one trace, the payment's request's: two
	// applied the payment, two took the capture for a duplicate.
	linked, dups := map[trace.TraceID]bool{}, 0
	for _, s := range rec.Ended() {
		if s.SpanKind() != trace.SpanKindConsumer {
			continue
		}
		for _, a := range s.Attributes() {
			if a.Key == engine.AttrDuplicate && a.Value.AsBool() {
				dups++
			}
		}
		for _, l := range s.Links() {
			linked[l.SpanContext.TraceID()] = true
		}
	}
	if dups != 2 || len(linked) != 1 {
		t.Errorf("%d process spans marked duplicate (want 2), linked to %d traces (want 1)", dups, len(linked))
	}
}
