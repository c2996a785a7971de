package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// SenderConfig configures the second outbox's sender.
type SenderConfig struct {
	Name     string // actor name; default "sender"
	Connect  Connect
	Clock    Clock
	Hook     Hook
	Provider Provider
}

// SendResult says what a sender's Step did.
type SendResult struct {
	Idle      bool // no charge waiting
	MessageID uuid.UUID
	ChargeID  int64
	Replayed  bool // the provider knew the key: nothing charged this time
}

// Sender makes the charges of the second outbox (effect_outbox) with the
// provider (S19, ExternalSecondOutbox): the relay of the effect's outbox.
// Each call carries the event id as the Idempotency-Key, so a sender that
// dies after the provider answered and before it marked the row sends it
// again and is answered with the first charge: at-least-once calls, one
// charge. It takes no lease for the same reason: two senders reading one row
// both call with one key. Not safe for concurrent use: one per goroutine.
type Sender struct {
	actor
	cfg SenderConfig
}

// NewSender returns a sender; it connects on first use.
func NewSender(cfg SenderConfig) *Sender {
	if cfg.Name == "" {
		cfg.Name = "sender"
	}
	return &Sender{actor: newActor(cfg.Name, cfg.Clock, cfg.Hook, cfg.Connect), cfg: cfg}
}

// Step sends the oldest charge not sent yet and marks it sent; with none
// waiting it reports Idle. A provider that fails leaves the row for the
// next step.
func (s *Sender) Step(ctx context.Context) (SendResult, error) {
	db, err := s.conn(ctx)
	if err != nil {
		return SendResult{}, fmt.Errorf("%s: %w", s.name, err)
	}
	var req ChargeRequest
	var id uuid.UUID
	err = s.queryRow(ctx, db, stmtNextEffect).Scan(&id, &req.PaymentID, &req.AmountCents, &req.Currency)
	if errors.Is(err, ErrNotFound) {
		// No charge waiting: an idle step, which reports nothing it ran.
		s.ran, s.last = nil, nil
		return SendResult{Idle: true}, nil
	}
	if err != nil {
		return SendResult{}, fmt.Errorf("%s: %w", s.name, err)
	}
	res := SendResult{MessageID: id}
	req.IdempotencyKey = id.String()
	ch, err := s.cfg.Provider.Charge(ctx, req)
	if err != nil {
		return res, fmt.Errorf("%s: message %s: %w", s.name, id, err)
	}
	res.ChargeID, res.Replayed = ch.ID, ch.Replayed
	detail := Say("card charged: charge %d, Idempotency-Key = the message id", ch.ID)
	if ch.Replayed {
		detail = Say("the provider knew the key: charge %d replayed, nothing charged", ch.ID)
	}
	ev := Event{Checkpoint: SenderCalled, MessageIDs: []uuid.UUID{id}, PaymentID: req.PaymentID, Detail: detail, External: ExternalSecondOutbox}
	if err := s.stopAt(ctx, SenderCalled, s.checkpoint(ctx, ev)); err != nil {
		return res, err
	}
	tag, err := s.exec(ctx, db, stmtMarkEffectSent, id, s.clock.Now(), ch.ID)
	if err != nil {
		return res, fmt.Errorf("%s: %w", s.name, err)
	}
	ev = Event{Checkpoint: SenderMarked, MessageIDs: []uuid.UUID{id}, PaymentID: req.PaymentID, Rows: tag.RowsAffected(), External: ExternalSecondOutbox}
	return res, s.stopAt(ctx, SenderMarked, s.checkpoint(ctx, ev))
}
