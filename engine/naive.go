package engine

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"
)

// NaiveWriterConfig configures the naive dual writer.
type NaiveWriterConfig struct {
	Name      string // actor name; default "naive"
	Connect   Connect
	Clock     Clock
	Hook      Hook
	Publisher Publisher
	Topic     string // default TopicPayments
	// TracerProvider traces each request as the outbox writer does, its
	// publish a child span whose traceparent the message carries; nil
	// traces nothing (otel's noop provider).
	TracerProvider trace.TracerProvider
}

// NaiveWriter is the dual write the outbox replaces (S1, S2): it writes the
// payment and publishes the event to the broker itself, two systems with no
// shared transaction. It exists to be broken: commit-then-publish loses
// events, publish-then-commit invents them. It owns one connection and is not
// safe for concurrent use.
type NaiveWriter struct {
	actor
	pub   Publisher
	topic string
}

// NewNaiveWriter returns a NaiveWriter; it connects on first use.
func NewNaiveWriter(cfg NaiveWriterConfig) *NaiveWriter {
	if cfg.Name == "" {
		cfg.Name = "naive"
	}
	if cfg.Topic == "" {
		cfg.Topic = TopicPayments
	}
	n := &NaiveWriter{actor: newActor(cfg.Name, cfg.Clock, cfg.Hook, cfg.Connect), pub: cfg.Publisher, topic: cfg.Topic}
	n.tr = newTracer(cfg.TracerProvider)
	return n
}

// traced runs one request, with tracing on as a span of the API transaction
// (as Writer.CreatePayment's).
func (n *NaiveWriter) traced(ctx context.Context, req PaymentRequest, run func(context.Context, PaymentRequest) (PaymentResponse, error)) (resp PaymentResponse, err error) {
	if !n.tr.on() {
		return run(ctx, req)
	}
	ctx, s := n.startAPI(ctx, SpanCreatePayment, &req, 1)
	n.spans = []trace.Span{s}
	defer func() {
		n.spans = nil
		n.endAPI(s, resp, err)
	}()
	return run(ctx, req)
}

// publish hands the event to the broker, with tracing on as a span of its
// own, child of the request's.
func (n *NaiveWriter) publish(ctx context.Context, p paymentPlan) error {
	msg := n.message(p)
	if !n.tr.on() {
		return n.pub.Publish(ctx, msg)
	}
	ctx, s := n.startPublish(ctx, msg, nil)
	err := n.pub.Publish(ctx, msg)
	endSpan(s, n.spanNow(), err)
	return err
}

// CommitThenPublish commits the payment, then publishes. A crash between the
// two (ErrCrash at naive.committed) leaves a payment no consumer hears of: a
// lost event (S1).
func (n *NaiveWriter) CommitThenPublish(ctx context.Context, req PaymentRequest) (PaymentResponse, error) {
	return n.traced(ctx, req, n.commitThenPublish)
}

func (n *NaiveWriter) commitThenPublish(ctx context.Context, req PaymentRequest) (PaymentResponse, error) {
	plan, err := n.start(ctx, req)
	if err != nil {
		return PaymentResponse{}, err
	}
	ev := n.event(plan, NaiveInserted, Say("payment written, not committed"))
	if err := n.finish(ctx, NaiveInserted, n.checkpoint(ctx, ev)); err != nil {
		return plan.resp, fmt.Errorf("naive create payment: %w", err)
	}
	ev = n.event(plan, NaiveCommitted, Say("payment committed; the event is not published yet"))
	ev.Statement = stmtCommit
	if err := n.stopAt(ctx, NaiveCommitted, n.checkpoint(ctx, ev)); err != nil {
		return plan.resp, err
	}
	if err := n.publish(ctx, plan); err != nil {
		return plan.resp, fmt.Errorf("naive publish after commit (payment %s is committed, its event is lost): %w", plan.req.PaymentID, err)
	}
	ev = n.event(plan, NaivePublished, Say("published after commit"))
	if err := n.stopAt(ctx, NaivePublished, n.checkpoint(ctx, ev)); err != nil {
		return plan.resp, err
	}
	return plan.resp, nil
}

// PublishThenCommit publishes while the payment's transaction is still open,
// then commits. A failed COMMIT (ErrFailCommit at naive.published) leaves
// consumers acting on a payment that never existed: a phantom (S2).
func (n *NaiveWriter) PublishThenCommit(ctx context.Context, req PaymentRequest) (PaymentResponse, error) {
	return n.traced(ctx, req, n.publishThenCommit)
}

func (n *NaiveWriter) publishThenCommit(ctx context.Context, req PaymentRequest) (PaymentResponse, error) {
	plan, err := n.start(ctx, req)
	if err != nil {
		return PaymentResponse{}, err
	}
	ev := n.event(plan, NaiveInserted, Say("payment written, not committed; publishing first"))
	if err := n.stopAt(ctx, NaiveInserted, n.checkpoint(ctx, ev)); err != nil {
		return PaymentResponse{}, err
	}
	if err := n.publish(ctx, plan); err != nil {
		n.rollback(ctx)
		return PaymentResponse{}, fmt.Errorf("naive publish before commit: %w", err)
	}
	ev = n.event(plan, NaivePublished, Say("published; the payment is not committed yet"))
	if err := n.finish(ctx, NaivePublished, n.checkpoint(ctx, ev)); err != nil {
		return plan.resp, fmt.Errorf("naive commit after publish (event %s is already out): %w", plan.env.ID, err)
	}
	ev = n.event(plan, NaiveCommitted, Say("payment committed"))
	ev.Statement = stmtCommit
	if err := n.stopAt(ctx, NaiveCommitted, n.checkpoint(ctx, ev)); err != nil {
		return plan.resp, err
	}
	return plan.resp, nil
}

// start plans the payment, reports naive.begin, and inserts it in an open transaction.
func (n *NaiveWriter) start(ctx context.Context, req PaymentRequest) (paymentPlan, error) {
	plan, err := planPayment(req, n.clock.Now())
	if err != nil {
		return paymentPlan{}, err
	}
	if err := n.stopAt(ctx, NaiveBegin, n.checkpoint(ctx, n.event(plan, NaiveBegin, Phrase{}))); err != nil {
		return paymentPlan{}, err
	}
	c, err := n.conn(ctx)
	if err != nil {
		return paymentPlan{}, fmt.Errorf("naive create payment: %w", err)
	}
	if err := n.begin(ctx, c); err != nil {
		return paymentPlan{}, fmt.Errorf("naive create payment: %w", err)
	}
	r := plan.req
	if _, err := n.exec(ctx, c, stmtInsertPayment, r.PaymentID, r.ClientID, r.AmountCents, r.Currency, nullable(r.TraceParent), plan.env.OccurredAt); err != nil {
		n.rollback(ctx)
		return paymentPlan{}, fmt.Errorf("naive create payment: %w", err)
	}
	return plan, nil
}

func (n *NaiveWriter) event(p paymentPlan, at Checkpoint, detail Phrase) Event {
	return Event{Checkpoint: at, PaymentID: p.req.PaymentID, MessageIDs: []uuid.UUID{p.env.ID}, Detail: detail}
}

func (n *NaiveWriter) message(p paymentPlan) Message {
	return newMessage(p.env, n.topic, n.name)
}

// newMessage wraps an envelope for the broker; the traceparent also travels
// as metadata, as a real broker header would (S22).
func newMessage(env Envelope, topic, publishedBy string) Message {
	md := make(map[string]string, 2)
	md["published_by"] = publishedBy
	if env.TraceParent != "" {
		md["traceparent"] = env.TraceParent
	}
	return Message{Envelope: env, Topic: topic, Key: env.AggregateID, Metadata: md}
}
