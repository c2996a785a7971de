package telemetry

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/enginetest"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

var t0 = enginetest.Start

// render draws a tree one span a line: indented by depth, "⇢" for a span
// hung by its link, its actor, virtual offset and duration, and whether
// it was a duplicate.
func render(tr Trace) string {
	var b strings.Builder
	tr.Walk(func(n *SpanNode, depth int) {
		via := ""
		if n.Via == ViaLink {
			via = "⇢ "
		}
		dup := ""
		if n.Attr(engine.AttrDuplicate).AsBool() {
			dup = " duplicate"
		}
		fmt.Fprintf(&b, "%s%s%s [%s] +%v %v%s\n", strings.Repeat("  ", depth), via, n.Name, n.Actor, n.Offset, n.Duration, dup)
	})
	return b.String()
}

// One payment through the real engine on PostgreSQL, traced into a
// recorder: its trace, found by the event id, is drawn as the tree a pane
// shows, in virtual time; a broker duplicate is a span of its own.
func TestTraceTreeOfOnePayment(t *testing.T) {
	t.Parallel()
	_, name := pgtest.DB(t)
	connect := engine.ConnectURL(pgtest.Server(t).DatabaseURL(name))
	clock := enginetest.NewClock()
	rec := NewTraceRecorder(0)
	tp := NewTracerProvider(TracingConfig{Recorder: rec, IDs: NewIDGenerator(1)})
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx := context.Background()

	broker := engine.NewBroker(engine.BrokerConfig{Clock: clock})
	for _, sub := range []string{"accounting", "notifications"} {
		if err := broker.Subscribe(engine.TopicPayments, sub); err != nil {
			t.Fatal(err)
		}
	}
	// A learner pausing at a checkpoint while the clock moves on shows as
	// the span's virtual duration.
	pause := func(at engine.Checkpoint, d time.Duration) engine.Hook {
		return func(_ context.Context, ev engine.Event) error {
			if ev.Checkpoint == at {
				clock.Advance(d)
			}
			return nil
		}
	}
	w := engine.NewWriter(engine.WriterConfig{Connect: connect, Clock: clock, Hook: pause(engine.APIInserted, 100*time.Millisecond), TracerProvider: tp})
	r := engine.NewRelay(engine.RelayConfig{Name: "relay-1", Connect: connect, Publisher: broker, Clock: clock, TracerProvider: tp})
	acc := engine.NewConsumer(engine.ConsumerConfig{Name: "accounting", Connect: connect, Subscriber: broker, Clock: clock,
		Hook: pause(engine.ConsumerCommitted, 20*time.Millisecond), TracerProvider: tp})
	notif := engine.NewConsumer(engine.ConsumerConfig{Name: "notifications", Connect: connect, Subscriber: broker, Clock: clock, TracerProvider: tp})
	for _, a := range []interface{ Close(context.Context) error }{w, r, acc, notif} {
		t.Cleanup(func() { _ = a.Close(context.Background()) })
	}

	resp, err := w.CreatePayment(ctx, engine.PaymentRequest{ClientID: "c1", AmountCents: 1250, Currency: "EUR",
		TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	if _, err := r.Step(ctx); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second)
	broker.DuplicateNext()
	for _, c := range []*engine.Consumer{acc, acc, notif} {
		if _, err := c.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}

	id, ok := rec.TraceOf(resp.EventID.String())
	if !ok || id.String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("trace of the event: %s %v, want the request's", id, ok)
	}
	tr := rec.Trace(id)
	want := `create payment [api] +0s 100ms
  ⇢ claim_batch outbox_messages [relay-1] +1.1s 0s
  publish payments [relay-1] +1.1s 0s
    ⇢ mark_published outbox_messages [relay-1] +1.1s 0s
    ⇢ process payments [accounting] +3.1s 20ms
      ack payments [accounting] +3.12s 0s
    ⇢ process payments [accounting] +3.12s 0s duplicate
      ack payments [accounting] +3.12s 0s duplicate
    ⇢ process payments [notifications] +3.12s 0s
      ack payments [notifications] +3.12s 0s
`
	if got := render(tr); got != want {
		t.Errorf("tree:\n%s\nwant:\n%s", got, want)
	}
	if !tr.Start.Equal(t0) || !tr.End.Equal(t0.Add(3120*time.Millisecond)) || tr.Spans != 10 {
		t.Errorf("trace from %v to %v, %d spans", tr.Start, tr.End, tr.Spans)
	}
	api := tr.Roots[0]
	var events []string
	for _, e := range api.Events {
		events = append(events, fmt.Sprintf("%s+%v", e.Name, e.Offset))
	}
	if got := strings.Join(events, " "); got != "api.begin+0s api.inserted+0s api.committed+100ms" {
		t.Errorf("API span's checkpoints: %s", got)
	}
	if api.Parent.SpanID().String() != "00f067aa0ba902b7" || api.Via != ViaRoot || api.Stage != engine.StageAPI {
		t.Errorf("API span: parent %s via %v stage %q: want a root under the caller's unrecorded span", api.Parent.SpanID(), api.Via, api.Stage)
	}
	// The consumer's spans are their own traces, joined by their links.
	proc := api.Children[1].Children[1]
	if proc.SpanContext.TraceID() == id || len(proc.Links) != 1 || !proc.Links[0].InTree {
		t.Errorf("process span: trace %s links %+v", proc.SpanContext.TraceID(), proc.Links)
	}
	if got := rec.TraceIDs(); len(got) != 6 || got[0] != id {
		t.Errorf("traces %v: want the payment's, the claim's, the mark's and three transactions'", got)
	}
}

// fake makes spans the way the engine does, at chosen virtual times.
type fake struct {
	t   *testing.T
	tr  trace.Tracer
	rec *TraceRecorder
}

func newFake(t *testing.T, limit int) *fake {
	rec := NewTraceRecorder(limit)
	tp := NewTracerProvider(TracingConfig{Recorder: rec, IDs: NewIDGenerator(9)})
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return &fake{t: t, tr: tp.Tracer("test"), rec: rec}
}

// span records a span from at for d, under parent (a zero one: a new trace).
func (f *fake) span(parent trace.SpanContext, name, stage, msg string, at time.Duration, d time.Duration, links ...trace.SpanContext) trace.SpanContext {
	ctx := context.Background()
	if parent.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, parent)
	}
	var ls []trace.Link
	for _, l := range links {
		ls = append(ls, trace.Link{SpanContext: l, Attributes: []attribute.KeyValue{semconv.MessagingMessageID(msg)}})
	}
	_, s := f.tr.Start(ctx, name, trace.WithTimestamp(t0.Add(at)), trace.WithLinks(ls...),
		trace.WithAttributes(engine.AttrStage.String(stage), semconv.MessagingMessageID(msg)))
	s.End(trace.WithTimestamp(t0.Add(at + d)))
	return s.SpanContext()
}

// A claim links to events of two traces: each trace's tree shows it, and
// neither pulls in the other's spans through it.
func TestTraceFollowsLinksOneHop(t *testing.T) {
	t.Parallel()
	f := newFake(t, 0)
	apiA := f.span(trace.SpanContext{}, "create A", engine.StageAPI, "a", 0, time.Second)
	apiB := f.span(trace.SpanContext{}, "create B", engine.StageAPI, "b", 2*time.Second, time.Second)
	claim := f.span(trace.SpanContext{}, "claim", engine.StageClaim, "", 5*time.Second, 0, apiA, apiB)
	pubB := f.span(apiB, "publish B", engine.StagePublish, "b", 6*time.Second, 0, claim)
	pubA := f.span(apiA, "publish A", engine.StagePublish, "a", 7*time.Second, 0, claim)
	proc := f.span(trace.SpanContext{}, "process A", engine.StageProcess, "a", 9*time.Second, 500*time.Millisecond, pubA)
	f.span(proc, "ack A", engine.StageSettle, "a", 9500*time.Millisecond, 0)
	f.span(trace.SpanContext{}, "process B", engine.StageProcess, "b", 9*time.Second, 0, pubB)

	want := `create A [] +0s 1s
  ⇢ claim [] +5s 0s
  publish A [] +7s 0s
    ⇢ process A [] +9s 500ms
      ack A [] +9.5s 0s
`
	tr := f.rec.Trace(apiA.TraceID())
	if got := render(tr); got != want {
		t.Errorf("tree of A:\n%s\nwant:\n%s", got, want)
	}
	claimNode := tr.Roots[0].Children[0]
	if len(claimNode.Links) != 2 || !claimNode.Links[0].InTree || claimNode.Links[1].InTree {
		t.Errorf("claim's links %+v: want A's in the tree, B's not", claimNode.Links)
	}
	wantB := `create B [] +0s 1s
  ⇢ claim [] +3s 0s
  publish B [] +4s 0s
    ⇢ process B [] +7s 0s
`
	if got := render(f.rec.Trace(apiB.TraceID())); got != wantB {
		t.Errorf("tree of B:\n%s\nwant:\n%s", got, wantB)
	}
	if tr := f.rec.Trace(trace.TraceID{1}); len(tr.Roots) != 0 || tr.Spans != 0 {
		t.Errorf("an unknown trace: %d roots", len(tr.Roots))
	}
}

// A span whose parent was not recorded (a caller's, a crashed process's,
// one forgotten) is a root; siblings come by virtual start, then by the
// order they ended.
func TestTraceRootsAndOrder(t *testing.T) {
	t.Parallel()
	f := newFake(t, 0)
	caller := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{7}, SpanID: trace.SpanID{7}, TraceFlags: trace.FlagsSampled, Remote: true})
	lost := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{7}, SpanID: trace.SpanID{8}, TraceFlags: trace.FlagsSampled})
	late := f.span(caller, "late", engine.StageAPI, "x", 3*time.Second, 0)
	f.span(lost, "orphan", engine.StagePublish, "x", time.Second, 0)
	f.span(late, "second", engine.StagePublish, "x", 4*time.Second, 0)
	f.span(late, "first", engine.StagePublish, "x", 4*time.Second, 0)
	f.span(late, "earlier", engine.StagePublish, "x", 3500*time.Millisecond, 0)
	want := `orphan [] +0s 0s
late [] +2s 0s
  earlier [] +2.5s 0s
  second [] +3s 0s
  first [] +3s 0s
`
	if got := render(f.rec.Trace(trace.TraceID{7})); got != want {
		t.Errorf("tree:\n%s\nwant:\n%s", got, want)
	}
}

// The recorder keeps the last spans to end, at most its limit.
func TestTraceRecorderIsBounded(t *testing.T) {
	t.Parallel()
	f := newFake(t, 3)
	for i := range 5 {
		f.span(trace.SpanContext{}, fmt.Sprint("span ", i), engine.StageAPI, fmt.Sprint(i), time.Duration(i)*time.Second, 0)
	}
	var names []string
	for _, s := range f.rec.Spans() {
		names = append(names, s.Name())
	}
	if got := strings.Join(names, ", "); got != "span 2, span 3, span 4" || f.rec.Len() != 3 || f.rec.Dropped() != 2 {
		t.Errorf("kept %s (%d), dropped %d: want the last three", got, f.rec.Len(), f.rec.Dropped())
	}
	if _, ok := f.rec.TraceOf("1"); ok {
		t.Error("a forgotten span's event still found")
	}
	if _, ok := f.rec.TraceOf("3"); !ok {
		t.Error("a kept span's event not found")
	}
	f.rec.Reset()
	if f.rec.Len() != 0 || f.rec.Dropped() != 0 || len(f.rec.TraceIDs()) != 0 {
		t.Errorf("after Reset: %d spans, %d dropped", f.rec.Len(), f.rec.Dropped())
	}
}

// An event's trace is its API transaction's, else its publish's, else the
// one a consumer's span links to for it.
func TestTraceOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		make  func(f *fake) trace.TraceID // makes spans, returns the trace wanted
		found bool
	}{
		{"from the API span", func(f *fake) trace.TraceID {
			api := f.span(trace.SpanContext{}, "create", engine.StageAPI, "e", 0, 0)
			f.span(trace.SpanContext{}, "process", engine.StageProcess, "e", time.Second, 0, api)
			return api.TraceID()
		}, true},
		{"from a publish when the API span is gone", func(f *fake) trace.TraceID {
			f.span(trace.SpanContext{}, "process", engine.StageProcess, "e", 0, 0)
			pub := f.span(trace.SpanContext{}, "publish", engine.StagePublish, "e", time.Second, 0)
			return pub.TraceID()
		}, true},
		{"from a consumer's link", func(f *fake) trace.TraceID {
			remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{3}, SpanID: trace.SpanID{3}, Remote: true})
			f.span(trace.SpanContext{}, "process", engine.StageProcess, "e", 0, 0, remote)
			return remote.TraceID()
		}, true},
		{"not held", func(f *fake) trace.TraceID {
			f.span(trace.SpanContext{}, "create", engine.StageAPI, "other", 0, 0)
			return trace.TraceID{}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, 0)
			want := tc.make(f)
			got, ok := f.rec.TraceOf("e")
			if got != want || ok != tc.found {
				t.Errorf("TraceOf: %s %v, want %s %v", got, ok, want, tc.found)
			}
		})
	}
}

// Ids follow from the seed alone, so a replayed run stores the same
// traceparents.
func TestIDGeneratorIsSeeded(t *testing.T) {
	t.Parallel()
	ids := func(seed uint64) string {
		g := NewIDGenerator(seed)
		var b strings.Builder
		for range 3 {
			tid, sid := g.NewIDs(context.Background())
			fmt.Fprintf(&b, "%s-%s-%s ", tid, sid, g.NewSpanID(context.Background(), tid))
			if !tid.IsValid() || !sid.IsValid() {
				t.Fatal("a zero id")
			}
		}
		return b.String()
	}
	if a, b := ids(1), ids(1); a != b {
		t.Errorf("same seed, other ids:\n%s\n%s", a, b)
	}
	if a, b := ids(1), ids(2); a == b {
		t.Error("two seeds, the same ids")
	}
	g := NewIDGenerator(2)
	g.NewIDs(context.Background())
	g.Reseed(1)
	first, _ := NewIDGenerator(1).NewIDs(context.Background())
	if again, _ := g.NewIDs(context.Background()); again != first {
		t.Errorf("reseeded to 1: %s, want %s", again, first)
	}
}
