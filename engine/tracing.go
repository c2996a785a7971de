package engine

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Tracing (S22). Each actor's config takes a trace.TracerProvider; nil (or
// otel's noop provider) turns tracing off, and then the actor does exactly
// what it did before tracing existed: the request's traceparent is stored
// as given and carried as message metadata, and no span is made. With a
// provider:
//
//   - the writer extracts the request's traceparent (W3C Trace Context) and
//     starts the API transaction's span as its child, or a new trace when it
//     is missing or invalid; the traceparent stored with the payment and the
//     event is that span's, so what follows hangs under the transaction that
//     wrote the event;
//   - the relay's claim is one span per claim (a batch), linked to each
//     claimed event's stored context; each publish is a span of its own,
//     child of the event's stored context and linked to the claim, and its
//     context is what the message carries in its "traceparent" header, as a
//     real relay sets a broker header; the mark is a span linked to the
//     publishes it marks;
//   - each consumer's inbox transaction is a span linked to the context its
//     delivery carries (see Consumer.startProcess for why a link), and each
//     ACK, NACK or reject is a child span of it.
//
// Every span starts and ends at the actor's Clock, the simulator's virtual
// clock, so a trace shows virtual timings. A trace id correlates, it never
// deduplicates: the event id does that (one trace holds a payment and its
// capture; a redelivery is a new span of the same trace).

// Instrumentation is the instrumentation scope of the engine's spans.
const Instrumentation = "github.com/outboxlab/outboxlab/engine"

// MessagingSystem is messaging.system on the engine's messaging spans: the
// in-process broker has no name in the semantic conventions.
const MessagingSystem = "outboxlab"

// Attributes of outboxlab's own on the engine's spans, where the semantic
// conventions have none.
const (
	// AttrActor is the actor that made the span: api, relay-1, accounting-2.
	AttrActor = attribute.Key("outboxlab.actor")
	// AttrStage says which step of the chain a span is (Stage*).
	AttrStage = attribute.Key("outboxlab.stage")
	// AttrPaymentID is the payment the span's event belongs to.
	AttrPaymentID = attribute.Key("outboxlab.payment.id")
	// AttrReplayed is true on an API span answered from its idempotency record.
	AttrReplayed = attribute.Key("outboxlab.idempotency.replayed")
	// AttrAttempt is the outbox row's attempt this publish is (1 = first).
	AttrAttempt = attribute.Key("outboxlab.outbox.attempt")
	// AttrLeaseRecovered is true on a publish of a row whose previous lease
	// expired (its earlier relay died or stalled); on a claim, how many.
	AttrLeaseRecovered = attribute.Key("outboxlab.outbox.lease_recovered")
	// AttrLeaseUntil is the lease a claim wrote, in virtual time (RFC 3339).
	AttrLeaseUntil = attribute.Key("outboxlab.outbox.lease_until")
	// AttrLeaseLost counts published rows a mark found leased by another worker.
	AttrLeaseLost = attribute.Key("outboxlab.outbox.lease_lost")
	// AttrDelivery is the broker's delivery count (1 = first delivery).
	AttrDelivery = attribute.Key("outboxlab.delivery.count")
	// AttrOutcome is what a consumer did with a delivery (an Outcome).
	AttrOutcome = attribute.Key("outboxlab.inbox.outcome")
	// AttrDuplicate is true when the inbox found the delivery already
	// processed: it was committed and ACKed with no effect.
	AttrDuplicate = attribute.Key("outboxlab.inbox.duplicate")
	// AttrDuplicates counts the duplicates of a batch.
	AttrDuplicates = attribute.Key("outboxlab.inbox.duplicates")
	// AttrStatement is the named statement on a checkpoint's span event.
	AttrStatement = attribute.Key("outboxlab.statement")
	// AttrRows is the rows a checkpoint's statement affected or returned.
	AttrRows = attribute.Key("outboxlab.rows")
	// AttrDetail is a checkpoint's short human text.
	AttrDetail = attribute.Key("outboxlab.detail")
)

// The values of AttrStage, in the order a payment meets them.
const (
	StageAPI     = "api"     // the API transaction: payment, outbox row, key
	StageClaim   = "claim"   // a relay's claim of a batch
	StagePublish = "publish" // a relay hands one message to the broker
	StageMark    = "mark"    // a relay marks published rows
	StageProcess = "process" // a consumer's inbox transaction
	StageSettle  = "settle"  // a consumer's ACK, NACK or reject
)

// Span names of the API transactions.
const (
	SpanCreatePayment  = "create payment"
	SpanCapturePayment = "capture payment"
)

// tableOutbox is db.collection.name of the relay's statements.
const tableOutbox = "outbox_messages"

// propagator reads and writes the W3C traceparent.
var propagator = propagation.TraceContext{}

// tracer is an actor's tracer; the zero value is tracing off.
type tracer struct {
	t trace.Tracer
}

func newTracer(tp trace.TracerProvider) tracer {
	if tp == nil {
		return tracer{}
	}
	if _, off := tp.(noop.TracerProvider); off {
		// Tracing off costs nothing: not even parsing the traceparents.
		return tracer{}
	}
	return tracer{t: tp.Tracer(Instrumentation, trace.WithSchemaURL(semconv.SchemaURL))}
}

func (t tracer) on() bool { return t.t != nil }

// start starts a span at the virtual time at.
func (t tracer) start(ctx context.Context, name string, kind trace.SpanKind, at time.Time, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	opts = append(opts, trace.WithSpanKind(kind), trace.WithTimestamp(at))
	return t.t.Start(ctx, name, opts...)
}

// extract returns ctx carrying the remote span context of a W3C traceparent;
// ctx as it was when traceparent is missing or invalid.
func extract(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return propagator.Extract(ctx, propagation.MapCarrier{"traceparent": traceparent})
}

// inject returns the traceparent of ctx's span ("" when it has none).
func inject(ctx context.Context) string {
	c := propagation.MapCarrier{}
	propagator.Inject(ctx, c)
	return c["traceparent"]
}

// spanContextOf parses a traceparent; the result is invalid when it is.
func spanContextOf(traceparent string) trace.SpanContext {
	return trace.SpanContextFromContext(extract(context.Background(), traceparent))
}

// endSpan ends s at the virtual time at, as err says. A crash leaves s
// open: a process killed mid-span exports nothing, so a backend never
// sees the span — and neither does the learner, who sees the work of the
// dead actor's successor instead.
func endSpan(s trace.Span, at time.Time, err error) {
	if s == nil || errors.Is(err, ErrCrash) {
		return
	}
	if err != nil {
		s.SetStatus(codes.Error, err.Error())
		s.SetAttributes(semconv.ErrorTypeKey.String(errorType(err)))
	}
	s.End(trace.WithTimestamp(at))
}

// errorTypes name the engine's outcomes for error.type, most specific first.
var errorTypes = []struct {
	err  error
	name string
}{
	{ErrAmbiguousCommit, "ambiguous_commit"},
	{ErrCommitFailed, "commit_failed"},
	{ErrIdempotencyConflict, "idempotency_conflict"},
	{ErrInvalidRequest, "invalid_request"},
	{ErrBrokerDown, "broker_down"},
	{ErrStaleAck, "stale_ack"},
	{ErrLostLease, "lost_lease"},
	{ErrSerialization, "serialization_failure"},
	{ErrDuplicate, "duplicate_key"},
	{ErrConnection, "connection_lost"},
	{context.Canceled, "canceled"},
	{context.DeadlineExceeded, "timeout"},
}

// errorType is err's error.type: low cardinality, as the conventions ask.
func errorType(err error) string {
	for _, e := range errorTypes {
		if errors.Is(err, e.err) {
			return e.name
		}
	}
	return semconv.ErrorTypeOther.Value.AsString()
}

// peeker is a Clock that tells the time without moving it. The simulator's
// clock moves a microsecond at every Now, so that no two things share a
// time: spans read with Now would move every later time of a traced run,
// and the timeline of a run would depend on whether it was traced.
type peeker interface {
	Peek() time.Time
}

// spanNow is the virtual time for a span: the clock peeked at when it can
// be. With tracing off it reads no clock at all (and is zero).
func (a *actor) spanNow() time.Time {
	if !a.tr.on() {
		return time.Time{}
	}
	if p, ok := a.clock.(peeker); ok {
		return p.Peek()
	}
	return a.clock.Now()
}

// traceEvent adds a checkpoint to the spans the actor has open, as a span
// event at the virtual time it was reached.
func (a *actor) traceEvent(ev Event) {
	if len(a.spans) == 0 {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 3)
	if ev.Statement != nil {
		attrs = append(attrs, AttrStatement.String(ev.Statement.Name))
	}
	if ev.Rows != 0 {
		attrs = append(attrs, AttrRows.Int64(ev.Rows))
	}
	if d := ev.Detail.String(); d != "" {
		attrs = append(attrs, AttrDetail.String(d))
	}
	at := a.spanNow()
	for _, s := range a.spans {
		s.AddEvent(string(ev.Checkpoint), trace.WithTimestamp(at), trace.WithAttributes(attrs...))
	}
}

// dbAttrs are the database attributes of a span of this actor.
func (a *actor) dbAttrs() []attribute.KeyValue {
	attrs := []attribute.KeyValue{semconv.DBSystemNamePostgreSQL}
	if a.dbName != "" {
		attrs = append(attrs, semconv.DBNamespace(a.dbName))
	}
	return attrs
}

// startAPI starts the span of an API transaction, child of req's
// traceparent (ctx's span, else a new trace, when that is missing or
// invalid), and makes req's traceparent the span's: the traceparent stored
// with the event is the transaction that wrote it.
func (a *actor) startAPI(ctx context.Context, name string, req *PaymentRequest, batch int) (context.Context, trace.Span) {
	attrs := append(a.dbAttrs(), AttrActor.String(a.name), AttrStage.String(StageAPI),
		semconv.MessagingSystemKey.String(MessagingSystem), semconv.MessagingOperationTypeCreate,
		semconv.MessagingOperationName("create"))
	if req.EventID != uuid.Nil {
		attrs = append(attrs, semconv.MessagingMessageID(req.EventID.String()))
	}
	if req.PaymentID != uuid.Nil {
		attrs = append(attrs, AttrPaymentID.String(req.PaymentID.String()))
	}
	if batch > 1 {
		attrs = append(attrs, semconv.MessagingBatchMessageCount(batch))
	}
	// The span creates the message (the outbox row): PRODUCER, as the
	// messaging conventions' "create" span.
	ctx, s := a.tr.start(extract(ctx, req.TraceParent), name, trace.SpanKindProducer, a.spanNow(), trace.WithAttributes(attrs...))
	req.TraceParent = inject(ctx)
	return ctx, s
}

// endAPI ends an API transaction's span with what it answered.
func (a *actor) endAPI(s trace.Span, resp PaymentResponse, err error) {
	if resp.EventID != uuid.Nil {
		s.SetAttributes(semconv.MessagingMessageID(resp.EventID.String()), AttrPaymentID.String(resp.PaymentID.String()))
	}
	if err == nil {
		s.SetAttributes(AttrReplayed.Bool(resp.Replayed))
	}
	endSpan(s, a.spanNow(), err)
}

// startPublish starts the span of one publish to topic, child of ctx's
// span, and puts its traceparent in msg's metadata, as a real publisher
// sets a broker header.
func (a *actor) startPublish(ctx context.Context, msg Message, links []trace.Link, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	attrs = append(attrs, AttrActor.String(a.name), AttrStage.String(StagePublish),
		semconv.MessagingSystemKey.String(MessagingSystem), semconv.MessagingOperationTypeSend,
		semconv.MessagingOperationName("publish"), semconv.MessagingDestinationName(msg.Topic),
		semconv.MessagingMessageID(msg.ID.String()))
	ctx, s := a.tr.start(ctx, "publish "+msg.Topic, trace.SpanKindProducer, a.spanNow(),
		trace.WithLinks(links...), trace.WithAttributes(attrs...))
	if tp := inject(ctx); tp != "" {
		msg.Metadata["traceparent"] = tp
	}
	return ctx, s
}
