package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// WriterConfig configures the outbox writer (the API actor).
type WriterConfig struct {
	Name    string // actor name; default "api"
	Connect Connect
	Clock   Clock
	Hook    Hook
	// TracerProvider traces each API transaction (S22, tracing.go); nil
	// traces nothing (otel's noop provider).
	TracerProvider trace.TracerProvider
}

// Writer is the API side of the transactional outbox: the payment, its
// outbox row and the idempotency record commit in one transaction (S3, S7).
// A Writer owns one connection and is not safe for concurrent use: run one
// per goroutine, as one per request handler.
type Writer struct {
	actor
}

// NewWriter returns a Writer; it connects on first use.
func NewWriter(cfg WriterConfig) *Writer {
	if cfg.Name == "" {
		cfg.Name = "api"
	}
	w := &Writer{actor: newActor(cfg.Name, cfg.Clock, cfg.Hook, cfg.Connect)}
	w.tr = newTracer(cfg.TracerProvider)
	return w
}

// CreatePayment creates a payment and its PaymentCreated event atomically.
//
// With an IdempotencyKey, a repeat of the same request returns the stored
// response (Replayed) and creates nothing; the same key with another body
// returns an error wrapping ErrIdempotencyConflict. After an error wrapping
// ErrAmbiguousCommit the response still carries the ids that were tried;
// retrying the same request then resolves the outcome through the
// idempotency record (or, without a key, through the payment's primary key
// when the retry passes the same PaymentID) and never creates twice.
//
// With tracing on, the transaction is a span, child of req.TraceParent
// (a new trace when it is missing or invalid), and the traceparent stored
// with the payment and its event is that span's.
func (w *Writer) CreatePayment(ctx context.Context, req PaymentRequest) (resp PaymentResponse, err error) {
	if w.tr.on() {
		var s trace.Span
		ctx, s = w.startAPI(ctx, SpanCreatePayment, &req, 1)
		w.spans = []trace.Span{s}
		defer func() {
			w.spans = nil
			w.endAPI(s, resp, err)
		}()
	}
	return w.createPayment(ctx, req)
}

func (w *Writer) createPayment(ctx context.Context, req PaymentRequest) (PaymentResponse, error) {
	plan, err := planPayment(req, w.clock.Now())
	if err != nil {
		return PaymentResponse{}, err
	}
	ev := Event{Checkpoint: APIBegin, PaymentID: plan.req.PaymentID, MessageIDs: []uuid.UUID{plan.env.ID}}
	if err := w.stopAt(ctx, APIBegin, w.checkpoint(ctx, ev)); err != nil {
		return PaymentResponse{}, err
	}
	c, err := w.conn(ctx)
	if err != nil {
		return PaymentResponse{}, fmt.Errorf("create payment: %w", err)
	}
	if plan.req.IdempotencyKey != "" {
		if resp, done, err := w.replay(ctx, c, plan.req); done || err != nil {
			return resp, err
		}
	}
	if err := w.begin(ctx, c); err != nil {
		return PaymentResponse{}, fmt.Errorf("create payment: %w", err)
	}
	if err := w.insert(ctx, c, plan); err != nil {
		w.rollback(ctx)
		if plan.req.IdempotencyKey != "" && errors.Is(err, ErrDuplicate) {
			// A concurrent request with the same key committed first (or the
			// COMMIT of our own earlier, ambiguous attempt landed): its record
			// is the answer.
			if resp, done, rerr := w.replay(ctx, c, plan.req); done || rerr != nil {
				return resp, rerr
			}
		}
		return PaymentResponse{}, fmt.Errorf("create payment: %w", err)
	}
	ev = Event{Checkpoint: APIInserted, PaymentID: plan.req.PaymentID, MessageIDs: []uuid.UUID{plan.env.ID}, Rows: 1,
		Detail: Say("payment and outbox row written, not committed")}
	if err := w.finish(ctx, APIInserted, w.checkpoint(ctx, ev)); err != nil {
		return plan.resp, fmt.Errorf("create payment %s: %w", plan.req.PaymentID, err)
	}
	ev = Event{Checkpoint: APICommitted, PaymentID: plan.req.PaymentID, MessageIDs: []uuid.UUID{plan.env.ID}, Statement: stmtCommit,
		Detail: Say("payment and event are durable together")}
	if err := w.stopAt(ctx, APICommitted, w.checkpoint(ctx, ev)); err != nil {
		return plan.resp, err
	}
	return plan.resp, nil
}

// insert runs the statements of one payment inside the open transaction.
func (w *Writer) insert(ctx context.Context, c *pgx.Conn, p paymentPlan) error {
	r, e := p.req, p.env
	if _, err := w.exec(ctx, c, stmtInsertPayment, r.PaymentID, r.ClientID, r.AmountCents, r.Currency, nullable(r.TraceParent), e.OccurredAt); err != nil {
		return err
	}
	if _, err := w.exec(ctx, c, stmtInsertOutboxMessage, e.ID, e.AggregateType, e.AggregateID, e.AggregateVersion, e.Type,
		e.SchemaVersion, e.Payload, nullable(e.TraceParent), e.OccurredAt); err != nil {
		return err
	}
	if r.IdempotencyKey != "" {
		if _, err := w.exec(ctx, c, stmtInsertIdempotencyKey, r.ClientID, r.IdempotencyKey, p.hash, r.PaymentID, e.ID,
			p.resp.StatusCode, p.respJSON, e.OccurredAt); err != nil {
			return err
		}
	}
	_, err := w.exec(ctx, c, stmtNotifyOutbox)
	return err
}

// replay consults the idempotency record: done is true when it answered.
func (w *Writer) replay(ctx context.Context, c *pgx.Conn, req PaymentRequest) (PaymentResponse, bool, error) {
	var k storedKey
	err := w.queryRow(ctx, c, stmtFindIdempotencyKey, req.ClientID, req.IdempotencyKey).
		Scan(&k.hash, &k.paymentID, &k.eventID, &k.statusCode, &k.response)
	if errors.Is(err, ErrNotFound) {
		return PaymentResponse{}, false, nil // a key not seen before: create
	}
	if err != nil {
		return PaymentResponse{}, true, fmt.Errorf("create payment: %w", err)
	}
	resp, err := k.replay(req)
	ev := Event{Checkpoint: APIReplayed, PaymentID: k.paymentID, MessageIDs: []uuid.UUID{k.eventID}, Rows: 1,
		Detail: Say("Idempotency-Key seen before: stored response, nothing created")}
	if err != nil {
		ev.Detail = Say("Idempotency-Key reused with another body: rejected")
	}
	if herr := w.stopAt(ctx, APIReplayed, w.checkpoint(ctx, ev)); herr != nil {
		return PaymentResponse{}, true, herr
	}
	return resp, true, err
}

// CreatePayments creates many payments in one transaction (a batched
// producer): one statement per table, whatever the batch size. Requests
// whose key was seen before are answered from their records; the others are
// created together or not at all. With tracing on, each request has a span
// of its own, as CreatePayment's, all of the one transaction.
func (w *Writer) CreatePayments(ctx context.Context, reqs []PaymentRequest) (out []PaymentResponse, err error) {
	if w.tr.on() {
		reqs = slices.Clone(reqs) // their traceparents become the spans'
		spans := make([]trace.Span, len(reqs))
		for i := range reqs {
			_, spans[i] = w.startAPI(ctx, SpanCreatePayment, &reqs[i], len(reqs))
		}
		w.spans = spans
		defer func() {
			w.spans = nil
			for i, s := range spans {
				var resp PaymentResponse
				if i < len(out) {
					resp = out[i]
				}
				w.endAPI(s, resp, err)
			}
		}()
	}
	return w.createPayments(ctx, reqs)
}

func (w *Writer) createPayments(ctx context.Context, reqs []PaymentRequest) ([]PaymentResponse, error) {
	now := w.clock.Now()
	plans := make([]paymentPlan, len(reqs))
	seen := map[[2]string]bool{}
	for i, r := range reqs {
		p, err := planPayment(r, now)
		if err != nil {
			return nil, fmt.Errorf("create payments: request %d: %w", i, err)
		}
		if r.IdempotencyKey != "" {
			k := [2]string{r.ClientID, r.IdempotencyKey}
			if seen[k] {
				return nil, fmt.Errorf("create payments: request %d: %w: key %q twice in one batch", i, ErrInvalidRequest, r.IdempotencyKey)
			}
			seen[k] = true
		}
		plans[i] = p
	}
	ids := make([]uuid.UUID, len(plans))
	for i, p := range plans {
		ids[i] = p.env.ID
	}
	if err := w.stopAt(ctx, APIBegin, w.checkpoint(ctx, Event{Checkpoint: APIBegin, MessageIDs: ids})); err != nil {
		return nil, err
	}
	c, err := w.conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("create payments: %w", err)
	}
	out := make([]PaymentResponse, len(plans))
	fresh, err := w.replayBatch(ctx, c, plans, out)
	if err != nil {
		return nil, err
	}
	if len(fresh) == 0 {
		return out, nil
	}
	if err := w.begin(ctx, c); err != nil {
		return nil, fmt.Errorf("create payments: %w", err)
	}
	if err := w.insertBatch(ctx, c, plans, fresh, now); err != nil {
		w.rollback(ctx)
		return nil, fmt.Errorf("create payments: %w", err)
	}
	ev := Event{Checkpoint: APIInserted, MessageIDs: ids, Rows: int64(len(fresh)), Detail: Say("payments and outbox rows written, not committed")}
	if err := w.finish(ctx, APIInserted, w.checkpoint(ctx, ev)); err != nil {
		return out, fmt.Errorf("create payments: %w", err)
	}
	if err := w.stopAt(ctx, APICommitted, w.checkpoint(ctx, Event{Checkpoint: APICommitted, MessageIDs: ids, Statement: stmtCommit})); err != nil {
		return out, err
	}
	return out, nil
}

// replayBatch answers the requests whose keys have records and returns the
// indexes still to create (their responses filled in out).
func (w *Writer) replayBatch(ctx context.Context, c *pgx.Conn, plans []paymentPlan, out []PaymentResponse) ([]int, error) {
	var clients, keys []string
	for _, p := range plans {
		if p.req.IdempotencyKey != "" {
			clients, keys = append(clients, p.req.ClientID), append(keys, p.req.IdempotencyKey)
		}
	}
	stored := map[[2]string]storedKey{}
	if len(keys) > 0 {
		err := w.query(ctx, c, stmtFindKeysBatch, func(rows pgx.Rows) error {
			for rows.Next() {
				var client, key string
				var k storedKey
				if err := rows.Scan(&client, &key, &k.hash, &k.paymentID, &k.eventID, &k.statusCode, &k.response); err != nil {
					return err
				}
				stored[[2]string{client, key}] = k
			}
			return nil
		}, clients, keys)
		if err != nil {
			return nil, fmt.Errorf("create payments: %w", err)
		}
	}
	var fresh []int
	for i, p := range plans {
		k, ok := stored[[2]string{p.req.ClientID, p.req.IdempotencyKey}]
		if !ok || p.req.IdempotencyKey == "" {
			out[i] = p.resp
			fresh = append(fresh, i)
			continue
		}
		resp, err := k.replay(p.req)
		if err != nil {
			return nil, fmt.Errorf("create payments: request %d: %w", i, err)
		}
		out[i] = resp
	}
	return fresh, nil
}

func (w *Writer) insertBatch(ctx context.Context, c *pgx.Conn, plans []paymentPlan, fresh []int, now time.Time) error {
	n := len(fresh)
	var (
		pIDs, eIDs                   = make([]uuid.UUID, n), make([]uuid.UUID, n)
		clients, currencies, traces  = make([]string, n), make([]string, n), make([]*string, n)
		amounts, versions            = make([]int64, n), make([]int64, n)
		aggTypes, aggIDs, eventTypes = make([]string, n), make([]string, n), make([]string, n)
		schemas                      = make([]int32, n)
		payloads                     = make([]string, n)
		kClients, kKeys              []string
		kHashes                      [][]byte
		kResponses                   []string
		kPIDs, kEIDs                 []uuid.UUID
		kStatus                      []int32
	)
	for j, i := range fresh {
		p := plans[i]
		pIDs[j], eIDs[j] = p.req.PaymentID, p.env.ID
		clients[j], currencies[j], traces[j] = p.req.ClientID, p.req.Currency, nullable(p.req.TraceParent)
		amounts[j], versions[j] = p.req.AmountCents, p.env.AggregateVersion
		aggTypes[j], aggIDs[j], eventTypes[j] = p.env.AggregateType, p.env.AggregateID, p.env.Type
		schemas[j], payloads[j] = int32(p.env.SchemaVersion), string(p.env.Payload)
		if p.req.IdempotencyKey != "" {
			kClients, kKeys = append(kClients, p.req.ClientID), append(kKeys, p.req.IdempotencyKey)
			kHashes, kResponses = append(kHashes, p.hash), append(kResponses, string(p.respJSON))
			kPIDs, kEIDs = append(kPIDs, p.req.PaymentID), append(kEIDs, p.env.ID)
			kStatus = append(kStatus, int32(p.resp.StatusCode))
		}
	}
	// One round trip: the statements are pipelined inside the open transaction.
	batch := &pgx.Batch{}
	queued := []*Statement{stmtInsertPaymentsBatch, stmtInsertOutboxBatch}
	batch.Queue(stmtInsertPaymentsBatch.SQL, pIDs, clients, amounts, currencies, traces, now)
	batch.Queue(stmtInsertOutboxBatch.SQL, eIDs, aggTypes, aggIDs, versions, eventTypes, schemas, payloads, traces, now)
	if len(kKeys) > 0 {
		batch.Queue(stmtInsertKeysBatch.SQL, kClients, kKeys, kHashes, kPIDs, kEIDs, kStatus, kResponses, now)
		queued = append(queued, stmtInsertKeysBatch)
	}
	batch.Queue(stmtNotifyOutbox.SQL)
	queued = append(queued, stmtNotifyOutbox)
	br := c.SendBatch(ctx, batch)
	for _, st := range queued {
		w.note(st)
		if _, err := batchExec(br, st); err != nil {
			br.Close()
			return err
		}
	}
	return closeBatch(br, stmtNotifyOutbox)
}

// CapturePayment appends a PaymentCaptured event to an existing payment: the
// payment's version is bumped and the event carries it as aggregate_version,
// in one transaction. Two captures racing get consecutive versions. eventID,
// when not uuid.Nil, is the event id made once by a caller that retries (S21).
// traceParent is traced as CreatePayment traces a request's.
func (w *Writer) CapturePayment(ctx context.Context, paymentID, eventID uuid.UUID, traceParent string) (env Envelope, err error) {
	if eventID == uuid.Nil {
		eventID = newEventID()
	}
	if w.tr.on() {
		req := PaymentRequest{TraceParent: traceParent, PaymentID: paymentID, EventID: eventID}
		var s trace.Span
		ctx, s = w.startAPI(ctx, SpanCapturePayment, &req, 1)
		traceParent = req.TraceParent
		w.spans = []trace.Span{s}
		defer func() {
			w.spans = nil
			if err == nil {
				s.SetAttributes(AttrPaymentID.String(paymentID.String()), semconv.MessagingMessageID(env.ID.String()))
			}
			endSpan(s, w.spanNow(), err)
		}()
	}
	return w.capturePayment(ctx, paymentID, eventID, traceParent)
}

func (w *Writer) capturePayment(ctx context.Context, paymentID, eventID uuid.UUID, traceParent string) (Envelope, error) {
	env := Envelope{ID: eventID, AggregateType: AggregatePayment, AggregateID: paymentID.String(), Type: EventPaymentCaptured,
		SchemaVersion: 1, OccurredAt: w.clock.Now(), TraceParent: traceParent}
	ev := Event{Checkpoint: APIBegin, PaymentID: paymentID, MessageIDs: []uuid.UUID{env.ID}}
	if err := w.stopAt(ctx, APIBegin, w.checkpoint(ctx, ev)); err != nil {
		return Envelope{}, err
	}
	c, err := w.conn(ctx)
	if err != nil {
		return Envelope{}, fmt.Errorf("capture payment: %w", err)
	}
	if err := w.begin(ctx, c); err != nil {
		return Envelope{}, fmt.Errorf("capture payment: %w", err)
	}
	var p PaymentPayload
	err = w.queryRow(ctx, c, stmtBumpPaymentVersion, paymentID).Scan(&env.AggregateVersion, &p.ClientID, &p.AmountCents, &p.Currency)
	if err == nil {
		p.PaymentID = paymentID
		env.Payload, err = json.Marshal(p)
	}
	if err == nil {
		_, err = w.exec(ctx, c, stmtInsertOutboxMessage, env.ID, env.AggregateType, env.AggregateID, env.AggregateVersion, env.Type,
			env.SchemaVersion, env.Payload, nullable(env.TraceParent), env.OccurredAt)
	}
	if err == nil {
		_, err = w.exec(ctx, c, stmtNotifyOutbox)
	}
	if err != nil {
		w.rollback(ctx)
		return Envelope{}, fmt.Errorf("capture payment %s: %w", paymentID, err)
	}
	ev = Event{Checkpoint: APIInserted, PaymentID: paymentID, MessageIDs: []uuid.UUID{env.ID}, Rows: 1,
		Detail: Say("payment version %d and its event written, not committed", env.AggregateVersion)}
	if err := w.finish(ctx, APIInserted, w.checkpoint(ctx, ev)); err != nil {
		return env, fmt.Errorf("capture payment %s: %w", paymentID, err)
	}
	ev = Event{Checkpoint: APICommitted, PaymentID: paymentID, MessageIDs: []uuid.UUID{env.ID}, Statement: stmtCommit}
	if err := w.stopAt(ctx, APICommitted, w.checkpoint(ctx, ev)); err != nil {
		return env, err
	}
	return env, nil
}
