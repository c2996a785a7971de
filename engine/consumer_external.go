package engine

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// External is how a consumer makes an effect outside its database (S19): a
// card charge through a Provider. An inbox marker covers what commits in the
// marker's transaction; a call to a third party commits in the third party's
// database, so no order of "mark" and "call" is safe on its own.
type External string

const (
	// ExternalMarkerBefore commits the inbox marker (and the ledger entry)
	// then calls the provider: a crash between them leaves a payment marked
	// processed that was never charged, and the redelivery is taken for a
	// duplicate: the effect is lost.
	ExternalMarkerBefore External = "marker-before"
	// ExternalMarkerAfter calls the provider inside the inbox transaction,
	// then commits: a crash between the call and the COMMIT rolls the marker
	// back, the redelivery is new to the inbox, and the card is charged twice.
	ExternalMarkerAfter External = "marker-after"
	// ExternalProviderKey is ExternalMarkerAfter with the event id as the
	// provider's Idempotency-Key: the redelivery's call is answered with the
	// first charge, so a crash anywhere leaves exactly one (the right way when
	// the provider keeps keys).
	ExternalProviderKey External = "provider-key"
	// ExternalSecondOutbox writes the charge to a second outbox
	// (effect_outbox) in the inbox marker's transaction, and a Sender makes
	// it with the provider, keyed by the event id: the decision is atomic
	// with the marker, the call at least once, the key makes it once (the
	// right way when the effect must outlive the consumer's process, or the
	// call is slow).
	ExternalSecondOutbox External = "second-outbox"
)

// Externals are the external effect modes, as a scene's `effect:` header
// names them.
var Externals = []External{ExternalMarkerBefore, ExternalMarkerAfter, ExternalProviderKey, ExternalSecondOutbox}

// ParseExternal returns the mode with that name.
func ParseExternal(name string) (External, error) {
	for _, e := range Externals {
		if string(e) == name {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown external effect %q (want %q, %q, %q or %q)", name, ExternalMarkerBefore, ExternalMarkerAfter, ExternalProviderKey, ExternalSecondOutbox)
}

// charges reports whether this delivery's effect goes outside: only a
// PaymentCreated is charged.
func (c *Consumer) charges(d Delivery) bool {
	return c.cfg.External != "" && d.Type == EventPaymentCreated
}

// callProvider charges the card for the delivery's payment and reports it at
// ConsumerCalled; the hook's answer is returned for the caller to act on
// (finish before a COMMIT, stopAt after one).
func (c *Consumer) callProvider(ctx context.Context, d Delivery, p PaymentPayload) (error, error) {
	req := ChargeRequest{PaymentID: p.PaymentID, AmountCents: p.AmountCents, Currency: p.Currency}
	if c.cfg.External == ExternalProviderKey {
		req.IdempotencyKey = d.ID.String()
	}
	ch, err := c.cfg.Provider.Charge(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("message %s: %w", d.ID, err)
	}
	var detail Phrase
	switch {
	case ch.Replayed:
		detail = Say("the provider knew the key: charge %d replayed, nothing charged", ch.ID)
	case req.IdempotencyKey != "":
		detail = Say("card charged: charge %d, Idempotency-Key = the message id", ch.ID)
	default:
		detail = Say("card charged: charge %d, no Idempotency-Key", ch.ID)
	}
	return c.checkpoint(ctx, c.event(d, ConsumerCalled, detail)), nil
}

// queueCharge writes the charge to the second outbox, in the open transaction.
func (c *Consumer) queueCharge(ctx context.Context, db *pgx.Conn, d Delivery, p PaymentPayload) error {
	_, err := c.exec(ctx, db, stmtInsertEffectOutbox, d.ID, c.consumer, p.PaymentID, p.AmountCents, p.Currency, c.clock.Now())
	return err
}
