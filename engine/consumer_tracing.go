package engine

import (
	"context"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// settleOp is how a consumer settles a delivery with the broker.
type settleOp string

const (
	opAck    settleOp = "ack"
	opNack   settleOp = "nack"
	opReject settleOp = "reject"
)

// carried is the context a delivery carries: its "traceparent" header (the
// relay's publish), else the envelope's stored one (a publisher that sets
// no header, as the naive writer with tracing off).
func carried(d Delivery) trace.SpanContext {
	if tp := d.Metadata["traceparent"]; tp != "" {
		if sc := spanContextOf(tp); sc.IsValid() {
			return sc
		}
	}
	return spanContextOf(d.TraceParent)
}

// startProcess starts the span of an inbox transaction over ds (one
// delivery for Handle, a batch for HandleBatch).
//
// The span is LINKED to the context each delivery carries, not its child.
// The messaging conventions recommend links for a batch, and HandleBatch
// has no single parent to choose; Handle takes the same shape so that one
// consumer's spans look alike whatever its batch size. A link also says
// what happens: the transaction is the consumer's own unit of work, done
// when the broker hands the message out — once, twice, an hour later
// after a backoff — not a step inside the request that wrote the event,
// which returned long before. Each delivery is its own span (a duplicate
// too), in the consumer's own trace (ctx's span, else a new one), and the
// link carries the producer's trace id: the trace correlates the
// deliveries, the inbox deduplicates them (S22).
func (c *Consumer) startProcess(ctx context.Context, ds []Delivery) (context.Context, trace.Span) {
	links := make([]trace.Link, 0, len(ds))
	for _, d := range ds {
		if sc := carried(d); sc.IsValid() {
			links = append(links, trace.Link{SpanContext: sc, Attributes: []attribute.KeyValue{
				semconv.MessagingMessageID(d.ID.String()), AttrDelivery.Int(d.Count)}})
		}
	}
	d := ds[0]
	attrs := append(c.dbAttrs(), AttrActor.String(c.name), AttrStage.String(StageProcess),
		semconv.MessagingSystemKey.String(MessagingSystem), semconv.MessagingOperationTypeProcess,
		semconv.MessagingOperationName("process"), semconv.MessagingDestinationName(d.Topic),
		semconv.MessagingDestinationSubscriptionName(d.Subscription), semconv.MessagingConsumerGroupName(c.consumer))
	if len(ds) == 1 {
		attrs = append(attrs, semconv.MessagingMessageID(d.ID.String()), AttrDelivery.Int(d.Count))
	} else {
		attrs = append(attrs, semconv.MessagingBatchMessageCount(len(ds)))
	}
	return c.tr.start(ctx, "process "+d.Topic, trace.SpanKindConsumer, c.spanNow(),
		trace.WithLinks(links...), trace.WithAttributes(attrs...))
}

// endProcess ends an inbox transaction's span with what became of its
// deliveries: for one, its outcome; for a batch, how many were duplicates
// (each settle span carries its delivery's outcome).
func (c *Consumer) endProcess(s trace.Span, results []ConsumeResult, batch bool, err error) {
	if c.dbName != "" {
		s.SetAttributes(semconv.DBNamespace(c.dbName))
	}
	if !batch && len(results) == 1 && results[0].Outcome != "" {
		r := results[0]
		s.SetAttributes(AttrOutcome.String(string(r.Outcome)), AttrDuplicate.Bool(r.Outcome == OutcomeDuplicate))
		if r.PaymentID != uuid.Nil {
			s.SetAttributes(AttrPaymentID.String(r.PaymentID.String()))
		}
	}
	if batch {
		dups := 0
		for _, r := range results {
			if r.Outcome == OutcomeDuplicate {
				dups++
			}
		}
		s.SetAttributes(AttrDuplicates.Int(dups))
	}
	endSpan(s, c.spanNow(), err)
}

// settle ACKs, NACKs (after delay) or rejects (for reason) d; with tracing
// on, as a span child of the inbox transaction's, carrying the delivery's
// outcome ("" when it has none: a batch handed back after a lost race).
func (c *Consumer) settle(ctx context.Context, op settleOp, d Delivery, outcome Outcome, delay time.Duration, reason string) error {
	if !c.tr.on() {
		return c.settleNow(ctx, op, d, delay, reason)
	}
	attrs := []attribute.KeyValue{AttrActor.String(c.name), AttrStage.String(StageSettle),
		semconv.MessagingSystemKey.String(MessagingSystem), semconv.MessagingOperationTypeSettle,
		semconv.MessagingOperationName(string(op)), semconv.MessagingDestinationName(d.Topic),
		semconv.MessagingDestinationSubscriptionName(d.Subscription), semconv.MessagingConsumerGroupName(c.consumer),
		semconv.MessagingMessageID(d.ID.String()), AttrDelivery.Int(d.Count)}
	if outcome != "" {
		attrs = append(attrs, AttrOutcome.String(string(outcome)), AttrDuplicate.Bool(outcome == OutcomeDuplicate))
	}
	sctx, s := c.tr.start(ctx, string(op)+" "+d.Topic, trace.SpanKindClient, c.spanNow(), trace.WithAttributes(attrs...))
	err := c.settleNow(sctx, op, d, delay, reason)
	endSpan(s, c.spanNow(), err)
	return err
}

func (c *Consumer) settleNow(ctx context.Context, op settleOp, d Delivery, delay time.Duration, reason string) error {
	switch op {
	case opNack:
		return c.cfg.Subscriber.Nack(ctx, d, delay)
	case opReject:
		return c.cfg.Subscriber.Reject(ctx, d, reason)
	default:
		return c.cfg.Subscriber.Ack(ctx, d)
	}
}
