package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine/vclock"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// traced is a bundle whose actors trace into one in-memory recorder.
type traced struct {
	*bundle
	rec *tracetest.SpanRecorder
	tp  *sdktrace.TracerProvider
}

func setupTraced(t *testing.T) *traced {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return &traced{bundle: setup(t), rec: rec, tp: tp}
}

func (b *traced) writer(t *testing.T) *Writer {
	w := NewWriter(WriterConfig{Connect: b.connect, Clock: b.clock, TracerProvider: b.tp})
	t.Cleanup(func() { _ = w.Close(context.Background()) })
	return w
}

func (b *traced) relay(t *testing.T, name string, hook Hook) *Relay {
	r := NewRelay(RelayConfig{Name: name, Connect: b.connect, Publisher: b.broker, Clock: b.clock, Hook: hook, TracerProvider: b.tp})
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

func (b *traced) consumer(t *testing.T, name, actor string, hook Hook, batch int) *Consumer {
	c := NewConsumer(ConsumerConfig{Name: name, Actor: actor, Connect: b.connect, Subscriber: b.broker, Clock: b.clock,
		Hook: hook, BatchSize: batch, TracerProvider: b.tp})
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// drain steps c until it finds nothing to do; a crash ends it early.
func drain(t *testing.T, c *Consumer) {
	t.Helper()
	for {
		res, err := c.Step(context.Background())
		if err != nil {
			mustErrIs(t, err, ErrCrash)
			return
		}
		if res.Idle {
			return
		}
	}
}

// spans is what a recorder ended, with lookups by what tests ask.
type spans []sdktrace.ReadOnlySpan

func attr(s sdktrace.ReadOnlySpan, k attribute.Key) attribute.Value {
	for _, kv := range s.Attributes() {
		if kv.Key == k {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// stage returns the spans of one stage, those of actor only when actor is not "".
func (ss spans) stage(stage, actor string) spans {
	var out spans
	for _, s := range ss {
		if attr(s, AttrStage).AsString() == stage && (actor == "" || attr(s, AttrActor).AsString() == actor) {
			out = append(out, s)
		}
	}
	return out
}

// linksTo reports whether s links to the span sc.
func linksTo(s sdktrace.ReadOnlySpan, sc trace.SpanContext) bool {
	return slices.ContainsFunc(s.Links(), func(l sdktrace.Link) bool {
		return l.SpanContext.TraceID() == sc.TraceID() && l.SpanContext.SpanID() == sc.SpanID()
	})
}

func childOf(s, parent sdktrace.ReadOnlySpan) bool {
	return s.Parent().SpanID() == parent.SpanContext().SpanID() && s.SpanContext().TraceID() == parent.SpanContext().TraceID()
}

func traceParentOf(s sdktrace.ReadOnlySpan) string {
	sc := s.SpanContext()
	return fmt.Sprintf("00-%s-%s-01", sc.TraceID(), sc.SpanID())
}

var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

const incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// S22: one payment through writer → relay → broker → two consumers is one
// trace: the API transaction, the claim (linked), the publish (child), each
// consumer's inbox transaction (linked to the publish) and its ACK (child).
// A duplicate is a span of its own, marked so, linked into the same trace.
func TestTraceFollowsOnePayment(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		traceParent string
		keepTrace   bool
		// fault: "" none; "broker-duplicate" (DuplicateNext before
		// accounting receives); "relay-crash" (relay-1 dies after publishing,
		// relay-2 republishes after the lease); "consumer-crash" (accounting
		// dies after COMMIT, before ACK; redelivered after the ack timeout).
		fault string
	}{
		{name: "incoming traceparent kept", traceParent: incoming, keepTrace: true},
		{name: "no traceparent: a fresh trace", traceParent: ""},
		{name: "invalid traceparent: a fresh trace", traceParent: "00-not-a-trace-01"},
		{name: "all-zero trace id: a fresh trace", traceParent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01"},
		{name: "broker duplicate", traceParent: incoming, keepTrace: true, fault: "broker-duplicate"},
		{name: "republish after a relay crash", traceParent: incoming, keepTrace: true, fault: "relay-crash"},
		{name: "redelivery after a consumer crash", traceParent: incoming, keepTrace: true, fault: "consumer-crash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupTraced(t)
			ctx := context.Background()
			t0 := b.clock.Now()
			req := payment("c1")
			req.TraceParent = tc.traceParent
			resp := must[PaymentResponse](t)(b.writer(t).CreatePayment(ctx, req))

			b.clock.Advance(time.Second)
			if tc.fault == "relay-crash" {
				_, err := b.relay(t, "relay-1", faultAt(RelayPublished, ErrCrash)).Step(ctx)
				mustErrIs(t, err, ErrCrash)
				b.clock.Advance(31 * time.Second)
				must[RelayStepResult](t)(b.relay(t, "relay-2", nil).Step(ctx))
			} else {
				must[RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx))
			}

			b.clock.Advance(time.Second)
			tConsume := b.clock.Now()
			if tc.fault == "broker-duplicate" {
				b.broker.DuplicateNext()
			}
			var accHook Hook
			if tc.fault == "consumer-crash" {
				accHook = faultAt(ConsumerCommitted, ErrCrash)
			}
			drain(t, b.consumer(t, "accounting", "accounting", accHook, 0))
			drain(t, b.consumer(t, "notifications", "notifications", nil, 0))
			if tc.fault == "consumer-crash" {
				b.clock.Advance(31 * time.Second)
				drain(t, b.consumer(t, "accounting", "accounting-2", nil, 0))
			}

			all := spans(b.rec.Ended())
			api := all.stage(StageAPI, "api")
			if len(api) != 1 {
				t.Fatalf("%d API spans, want 1", len(api))
			}
			a := api[0]
			in := spanContextOf(incoming)
			switch {
			case tc.keepTrace && (a.SpanContext().TraceID() != in.TraceID() || a.Parent().SpanID() != in.SpanID() || !a.Parent().IsRemote()):
				t.Errorf("API span %s parent %s: want trace %s under the caller's span %s", a.SpanContext().TraceID(), a.Parent().SpanID(), in.TraceID(), in.SpanID())
			case !tc.keepTrace && (a.Parent().IsValid() || a.SpanContext().TraceID() == in.TraceID() || !a.SpanContext().IsValid()):
				t.Errorf("API span trace %s parent %v: want a fresh trace", a.SpanContext().TraceID(), a.Parent())
			}
			if a.Name() != SpanCreatePayment || a.SpanKind() != trace.SpanKindProducer || !a.StartTime().Equal(t0) ||
				attr(a, semconv.MessagingMessageIDKey).AsString() != resp.EventID.String() || attr(a, semconv.DBSystemNameKey).AsString() != "postgresql" {
				t.Errorf("API span %q kind %v start %v attrs %v", a.Name(), a.SpanKind(), a.StartTime(), a.Attributes())
			}
			var checkpoints []string
			for _, ev := range a.Events() {
				checkpoints = append(checkpoints, ev.Name)
			}
			if want := []string{string(APIBegin), string(APIInserted), string(APICommitted)}; !slices.Equal(checkpoints, want) {
				t.Errorf("API span events %v, want %v", checkpoints, want)
			}
			var stored string
			if err := b.pool.QueryRow(ctx, "SELECT o.trace_parent FROM outbox_messages o JOIN payments p ON p.trace_parent = o.trace_parent WHERE o.id = $1",
				resp.EventID).Scan(&stored); err != nil || stored != traceParentOf(a) {
				t.Errorf("stored traceparent %q (%v), want the API span's %q in both rows", stored, err, traceParentOf(a))
			}

			wantPublishes := 1
			if tc.fault == "relay-crash" {
				wantPublishes = 2
			}
			claims, publishes := all.stage(StageClaim, ""), all.stage(StagePublish, "")
			if len(claims) != wantPublishes || len(publishes) != wantPublishes {
				t.Fatalf("%d claims and %d publishes, want %d of each", len(claims), len(publishes), wantPublishes)
			}
			for i, p := range publishes {
				if !linksTo(claims[i], a.SpanContext()) || !childOf(p, a) || !linksTo(p, claims[i].SpanContext()) ||
					attr(p, AttrAttempt).AsInt64() != int64(i+1) || attr(p, AttrLeaseRecovered).AsBool() != (i == 1) {
					t.Errorf("publish %d: claim links %v, parent %s, links %v, attrs %v", i, claims[i].Links(), p.Parent().SpanID(), p.Links(), p.Attributes())
				}
			}
			lastPublish := publishes[len(publishes)-1]
			if marks := all.stage(StageMark, ""); len(marks) != 1 || !linksTo(marks[0], lastPublish.SpanContext()) {
				t.Errorf("%d marks, want one linked to the last publish", len(marks))
			}
			if got := lastPublish.StartTime().Sub(t0); got != time.Second+31*time.Second*time.Duration(wantPublishes-1) {
				t.Errorf("last publish at +%v in virtual time", got)
			}

			for _, consumer := range []string{"accounting", "notifications"} {
				var procs spans
				for _, s := range all.stage(StageProcess, "") {
					if attr(s, semconv.MessagingConsumerGroupNameKey).AsString() == consumer {
						procs = append(procs, s)
					}
				}
				wantDup := tc.fault == "broker-duplicate" && consumer == "accounting" || tc.fault == "relay-crash" ||
					tc.fault == "consumer-crash" && consumer == "accounting"
				want := []bool{false}
				switch {
				case tc.fault == "consumer-crash" && consumer == "accounting":
					// The crashed transaction's span never ended: a killed
					// process exports nothing. Only the redelivery is seen.
					want = []bool{true}
				case wantDup:
					want = []bool{false, true}
				}
				if len(procs) != len(want) {
					t.Fatalf("%s: %d process spans, want %d", consumer, len(procs), len(want))
				}
				for i, p := range procs {
					from := publishes[0]
					if tc.fault == "relay-crash" && i == 1 {
						from = publishes[1] // the republish carried its own context
					}
					if !linksTo(p, from.SpanContext()) || p.Parent().IsValid() || p.SpanKind() != trace.SpanKindConsumer ||
						p.SpanContext().TraceID() == a.SpanContext().TraceID() {
						t.Errorf("%s process %d: links %v parent %v: want a span of its own linked to publish %s", consumer, i, p.Links(), p.Parent(), from.SpanContext().SpanID())
					}
					if attr(p, AttrDuplicate).AsBool() != want[i] || attr(p, semconv.MessagingMessageIDKey).AsString() != resp.EventID.String() {
						t.Errorf("%s process %d: duplicate %v, want %v (attrs %v)", consumer, i, attr(p, AttrDuplicate).AsBool(), want[i], p.Attributes())
					}
					if tc.fault == "" && !p.StartTime().Equal(tConsume) {
						t.Errorf("%s process starts at %v, want the virtual %v", consumer, p.StartTime(), tConsume)
					}
					var acks spans
					for _, s := range all.stage(StageSettle, "") {
						if childOf(s, p) {
							acks = append(acks, s)
						}
					}
					if len(acks) != 1 || acks[0].Name() != "ack "+TopicPayments || attr(acks[0], AttrDuplicate).AsBool() != want[i] {
						t.Errorf("%s process %d: %d ACK spans under it, want one", consumer, i, len(acks))
					}
				}
			}
		})
	}
}

// With no TracerProvider the actors trace nothing and carry the request's
// traceparent exactly as before: stored as given, sent as metadata.
func TestTracingOffCarriesTraceParentAsGiven(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	req := payment("c1")
	req.TraceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03" // flags the propagator would rewrite
	must[PaymentResponse](t)(b.writer(t, nil).CreatePayment(ctx, req))
	must[RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx))
	d, ok, err := b.broker.Receive(ctx, "accounting")
	if err != nil || !ok {
		t.Fatalf("receive: %v %v", ok, err)
	}
	if d.TraceParent != req.TraceParent || d.Metadata["traceparent"] != req.TraceParent {
		t.Errorf("envelope %q, header %q: want %q", d.TraceParent, d.Metadata["traceparent"], req.TraceParent)
	}
}

// A batch: each request its own API span under its own caller; one claim
// linked to all; one inbox transaction linked to every delivery, with an
// ACK span per delivery carrying its outcome.
func TestTraceBatches(t *testing.T) {
	t.Parallel()
	b := setupTraced(t)
	ctx := context.Background()
	reqs := make([]PaymentRequest, 3)
	for i := range reqs {
		reqs[i] = payment(fmt.Sprintf("c%d", i))
		reqs[i].TraceParent = fmt.Sprintf("00-%032x-%016x-01", i+1, i+1)
	}
	resps := must[[]PaymentResponse](t)(b.writer(t).CreatePayments(ctx, reqs))
	if reqs[0].TraceParent != fmt.Sprintf("00-%032x-%016x-01", 1, 1) {
		t.Errorf("the caller's requests changed: %q", reqs[0].TraceParent)
	}
	must[RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx))
	b.broker.DuplicateNext()
	got := must[[]ConsumeResult](t)(b.consumer(t, "accounting", "accounting", nil, 10).StepBatch(ctx))
	if len(got) != 4 {
		t.Fatalf("%d results, want 3 and a duplicate", len(got))
	}

	all := spans(b.rec.Ended())
	api := all.stage(StageAPI, "")
	if len(api) != 3 {
		t.Fatalf("%d API spans, want 3", len(api))
	}
	claims := all.stage(StageClaim, "")
	if len(claims) != 1 || attr(claims[0], semconv.MessagingBatchMessageCountKey).AsInt64() != 3 {
		t.Fatalf("%d claims, want one of 3", len(claims))
	}
	for i, a := range api {
		if a.SpanContext().TraceID() != spanContextOf(reqs[i].TraceParent).TraceID() || !linksTo(claims[0], a.SpanContext()) ||
			attr(a, semconv.MessagingMessageIDKey).AsString() != resps[i].EventID.String() {
			t.Errorf("API span %d: trace %s, claim links %v", i, a.SpanContext().TraceID(), claims[0].Links())
		}
	}
	procs := all.stage(StageProcess, "")
	if len(procs) != 1 || len(procs[0].Links()) != 4 || attr(procs[0], AttrDuplicates).AsInt64() != 1 {
		t.Fatalf("%d process spans, want one with 4 links and a duplicate", len(procs))
	}
	for _, p := range all.stage(StagePublish, "") {
		if !linksTo(procs[0], p.SpanContext()) {
			t.Errorf("the batch's span does not link to publish %s", p.SpanContext().SpanID())
		}
	}
	acks, dups := all.stage(StageSettle, ""), 0
	for _, s := range acks {
		if !childOf(s, procs[0]) {
			t.Errorf("ACK %s is not the batch's child", s.SpanContext().SpanID())
		}
		if attr(s, AttrDuplicate).AsBool() {
			dups++
		}
	}
	if len(acks) != 4 || dups != 1 {
		t.Errorf("%d ACK spans, %d duplicates: want 4 and 1", len(acks), dups)
	}
}

// A payment and its capture share a trace (the capture continues it) and
// are two events: the consumers apply both, by event id (S22).
func TestTraceCaptureSharesTheTrace(t *testing.T) {
	t.Parallel()
	b := setupTraced(t)
	ctx := context.Background()
	w := b.writer(t)
	resp := must[PaymentResponse](t)(w.CreatePayment(ctx, payment("c1")))
	created := spans(b.rec.Ended()).stage(StageAPI, "")[0]
	env := must[Envelope](t)(w.CapturePayment(ctx, resp.PaymentID, uuid.Nil, traceParentOf(created)))
	must[RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx))
	drain(t, b.consumer(t, "accounting", "accounting", nil, 0))

	all := spans(b.rec.Ended())
	api := all.stage(StageAPI, "")
	if len(api) != 2 || api[1].Name() != SpanCapturePayment || !childOf(api[1], api[0]) ||
		attr(api[1], semconv.MessagingMessageIDKey).AsString() != env.ID.String() {
		t.Fatalf("API spans %v: want the capture under the creation", api)
	}
	procs := all.stage(StageProcess, "accounting")
	if len(procs) != 2 || attr(procs[0], AttrDuplicate).AsBool() || attr(procs[1], AttrDuplicate).AsBool() {
		t.Fatalf("%d process spans: want two events applied, neither a duplicate", len(procs))
	}
}

// The naive writer traces as the outbox writer does, its publish a child of
// the request's span: a phantom (S2) shows as a failed API span whose
// publish went out anyway and was processed.
func TestTraceNaiveWriter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		publishFirst bool
		hook         Hook
		failed       bool
	}{
		{"commit then publish", false, nil, false},
		{"publish then a failed commit", true, faultAt(NaivePublished, ErrFailCommit), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupTraced(t)
			n := NewNaiveWriter(NaiveWriterConfig{Connect: b.connect, Clock: b.clock, Publisher: b.broker, Hook: tc.hook, TracerProvider: b.tp})
			t.Cleanup(func() { _ = n.Close(context.Background()) })
			write := n.CommitThenPublish
			if tc.publishFirst {
				write = n.PublishThenCommit
			}
			_, err := write(context.Background(), payment("c1"))
			if (err != nil) != tc.failed {
				t.Fatalf("naive write: %v", err)
			}
			drain(t, b.consumer(t, "accounting", "accounting", nil, 0))

			all := spans(b.rec.Ended())
			api, pub, proc := all.stage(StageAPI, "naive"), all.stage(StagePublish, "naive"), all.stage(StageProcess, "accounting")
			if len(api) != 1 || len(pub) != 1 || len(proc) != 1 {
				t.Fatalf("%d API, %d publish, %d process spans: want one of each", len(api), len(pub), len(proc))
			}
			if !childOf(pub[0], api[0]) || !linksTo(proc[0], pub[0].SpanContext()) || attr(proc[0], AttrOutcome).AsString() != string(OutcomeApplied) {
				t.Errorf("publish parent %s, process links %v outcome %v", pub[0].Parent().SpanID(), proc[0].Links(), attr(proc[0], AttrOutcome))
			}
			if failed := attr(api[0], "error.type").AsString() == "commit_failed"; failed != tc.failed {
				t.Errorf("API span status %v %v, failed %v", api[0].Status(), api[0].Attributes(), tc.failed)
			}
		})
	}
}

// Tracing reads a peekable clock without moving it: a run traced or not
// moves the simulator's clock the same, so its timeline is the same.
func TestTracingLeavesATickingClockAlone(t *testing.T) {
	t.Parallel()
	run := func(traced bool) (time.Duration, int) {
		b := setupTraced(t)
		var tp trace.TracerProvider
		if traced {
			tp = b.tp
		}
		clock := vclock.Ticking(t0, time.Microsecond) // as the simulator's
		ctx := context.Background()
		w := NewWriter(WriterConfig{Connect: b.connect, Clock: clock, TracerProvider: tp})
		r := NewRelay(RelayConfig{Connect: b.connect, Publisher: b.broker, Clock: clock, TracerProvider: tp})
		cs := []*Consumer{
			NewConsumer(ConsumerConfig{Name: "accounting", Connect: b.connect, Subscriber: b.broker, Clock: clock, TracerProvider: tp}),
			NewConsumer(ConsumerConfig{Name: "notifications", Connect: b.connect, Subscriber: b.broker, Clock: clock, TracerProvider: tp}),
		}
		t.Cleanup(func() {
			for _, a := range []interface{ Close(context.Context) error }{w, r, cs[0], cs[1]} {
				_ = a.Close(context.Background())
			}
		})
		must[PaymentResponse](t)(w.CreatePayment(ctx, payment("c1")))
		must[RelayStepResult](t)(r.Step(ctx))
		b.broker.DuplicateNext()
		for _, c := range cs {
			drain(t, c)
		}
		return clock.Peek().Sub(t0), len(b.rec.Ended())
	}
	plain, none := run(false)
	traced, spans := run(true)
	if plain != traced || none != 0 || spans == 0 {
		t.Errorf("the clock moved %v untraced, %v traced (%d and %d spans)", plain, traced, none, spans)
	}
}

// Every way a relay runs traces the same chain: each event's publish is
// linked from a claim and, once marked, from a mark.
func TestTraceRelayModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  RelayConfig
	}{
		{"batches of two", RelayConfig{BatchSize: 2}},
		{"pipelined", RelayConfig{BatchSize: 2, Pipeline: true}},
		{"holding the transaction (S8)", RelayConfig{BatchSize: 2, HoldTransaction: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupTraced(t)
			ctx := context.Background()
			reqs := make([]PaymentRequest, 5)
			for i := range reqs {
				reqs[i] = payment(fmt.Sprintf("c%d", i))
			}
			must[[]PaymentResponse](t)(b.writer(t).CreatePayments(ctx, reqs))
			cfg := tc.cfg
			cfg.Name, cfg.Connect, cfg.Publisher, cfg.Clock, cfg.TracerProvider = "relay-1", b.connect, b.broker, b.clock, b.tp
			r := NewRelay(cfg)
			t.Cleanup(func() { _ = r.Close(context.Background()) })
			for {
				res := must[RelayStepResult](t)(r.Step(ctx))
				if res.Idle {
					break
				}
			}
			must[RelayStepResult](t)(r.Flush(ctx))

			all := spans(b.rec.Ended())
			claims, publishes, marks := all.stage(StageClaim, ""), all.stage(StagePublish, ""), all.stage(StageMark, "")
			if len(claims) != 3 || len(publishes) != 5 || len(marks) != 3 {
				t.Fatalf("%d claims, %d publishes, %d marks: want 3, 5, 3", len(claims), len(publishes), len(marks))
			}
			for _, p := range publishes {
				claimed, marked := 0, 0
				for _, c := range claims {
					if linksTo(p, c.SpanContext()) {
						claimed++
					}
				}
				for _, m := range marks {
					if linksTo(m, p.SpanContext()) {
						marked++
					}
				}
				if claimed != 1 || marked != 1 {
					t.Errorf("publish %s: linked to %d claims, from %d marks", attr(p, semconv.MessagingMessageIDKey).AsString(), claimed, marked)
				}
			}
			if len(r.sent) != 0 {
				t.Errorf("%d publish spans still wait for a mark", len(r.sent))
			}
		})
	}
}
