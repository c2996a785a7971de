package engine

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// traceClaim records the span of a claim sent at sent and read now, and
// returns its context. One claim leases a batch of events of many traces,
// so the span is the relay's own (child of ctx's span, else a new trace)
// and links to each event's stored context, as the messaging conventions
// ask of a batch receive. A claim that found nothing makes no span: an
// idle relay polls all day, and its empty claims would crowd every trace
// out of a bounded recorder.
func (r *Relay) traceClaim(ctx context.Context, sent, leaseUntil time.Time, msgs []ClaimedMessage, err error) trace.SpanContext {
	if !r.tr.on() || (err == nil && len(msgs) == 0) {
		return trace.SpanContext{}
	}
	links := make([]trace.Link, 0, len(msgs))
	recovered := 0
	for _, m := range msgs {
		if m.Recovered {
			recovered++
		}
		if sc := spanContextOf(m.TraceParent); sc.IsValid() {
			links = append(links, trace.Link{SpanContext: sc, Attributes: []attribute.KeyValue{semconv.MessagingMessageID(m.ID.String())}})
		}
	}
	attrs := append(r.dbAttrs(), AttrActor.String(r.name), AttrStage.String(StageClaim),
		semconv.DBCollectionName(tableOutbox), semconv.DBOperationName(stmtClaimBatch.Name),
		semconv.DBResponseReturnedRows(len(msgs)), semconv.MessagingBatchMessageCount(len(msgs)),
		AttrLeaseRecovered.Int(recovered))
	if !leaseUntil.IsZero() {
		attrs = append(attrs, AttrLeaseUntil.String(leaseUntil.UTC().Format(time.RFC3339Nano)))
	}
	_, s := r.tr.start(ctx, stmtClaimBatch.Name+" "+tableOutbox, trace.SpanKindClient, sent,
		trace.WithLinks(links...), trace.WithAttributes(attrs...))
	endSpan(s, r.spanNow(), err)
	return s.SpanContext()
}

// publishOne hands m to the broker. With tracing on, the publish is a span,
// child of the event's stored context (the API transaction that wrote it)
// and linked to the claim, and the message carries the span's traceparent
// in its metadata, as a real relay sets a broker header: a consumer's link
// then tells which publish its delivery came from (a republish after a
// crash is a second publish span; a duplicate the broker made is not). The
// envelope keeps the stored traceparent, the event's creation context.
// dup is the broker's answer that it already held the id and dropped this
// copy (a DedupPublisher's); either way the broker has the message.
func (r *Relay) publishOne(ctx context.Context, m ClaimedMessage, claimed trace.SpanContext) (dup bool, err error) {
	msg := newMessage(m.Envelope, r.cfg.Topic, r.name)
	if !r.tr.on() {
		return r.send(ctx, msg)
	}
	var links []trace.Link
	if claimed.IsValid() {
		links = []trace.Link{{SpanContext: claimed}}
	}
	pctx, s := r.startPublish(extract(ctx, m.TraceParent), msg, links, AttrAttempt.Int(m.Attempts), AttrLeaseRecovered.Bool(m.Recovered))
	dup, err = r.send(pctx, msg)
	endSpan(s, r.spanNow(), err)
	if err == nil {
		if len(r.sent) >= 8*r.cfg.BatchSize {
			// Marks that never came (a mark's read failed): forget their links.
			clear(r.sent)
		}
		r.sent[m.ID] = s.SpanContext()
	}
	return dup, err
}

// send publishes msg, asking a DedupPublisher whether it was a duplicate.
func (r *Relay) send(ctx context.Context, msg Message) (bool, error) {
	if d, ok := r.cfg.Publisher.(DedupPublisher); ok {
		return d.PublishDedup(ctx, msg)
	}
	return false, r.cfg.Publisher.Publish(ctx, msg)
}

// traceMark records the span of a mark, linked to the publishes it marked
// (like the claim, one mark settles events of many traces).
func (r *Relay) traceMark(ctx context.Context, m markOutcome) {
	if !r.tr.on() || len(m.asked) == 0 {
		return
	}
	links := make([]trace.Link, 0, len(m.asked))
	for _, id := range m.asked {
		if sc, ok := r.sent[id]; ok {
			links = append(links, trace.Link{SpanContext: sc, Attributes: []attribute.KeyValue{semconv.MessagingMessageID(id.String())}})
			delete(r.sent, id)
		}
	}
	start := m.sent
	if start.IsZero() {
		start = r.spanNow()
	}
	attrs := append(r.dbAttrs(), AttrActor.String(r.name), AttrStage.String(StageMark),
		semconv.DBCollectionName(tableOutbox), semconv.DBOperationName(stmtMarkPublished.Name),
		semconv.MessagingBatchMessageCount(len(m.asked)), semconv.DBResponseReturnedRows(len(m.marked)),
		AttrLeaseLost.Int(len(m.asked)-len(m.marked)))
	_, s := r.tr.start(ctx, stmtMarkPublished.Name+" "+tableOutbox, trace.SpanKindClient, start,
		trace.WithLinks(links...), trace.WithAttributes(attrs...))
	endSpan(s, r.spanNow(), nil)
}
