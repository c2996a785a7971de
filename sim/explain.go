package sim

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
)

// entryFor turns a checkpoint into a timeline entry with a sentence a learner
// can read.
func (s *Sim) entryFor(r *runner, ev engine.Event) Entry {
	e := Entry{Pipeline: r.pipe.Kind, Actor: ev.Actor, Kind: KindCheckpoint, Checkpoint: string(ev.Checkpoint), Rows: ev.Rows, Delivery: ev.Delivery,
		DedupDropped: ev.DedupDropped}
	if ev.Statement != nil {
		e.Statement, e.SQL = ev.Statement.Name, strings.TrimSpace(ev.Statement.SQL)
	}
	for _, id := range ev.MessageIDs {
		e.MessageIDs = append(e.MessageIDs, id.String())
	}
	if ev.PaymentID != uuid.Nil {
		e.PaymentID = ev.PaymentID.String()
	}
	if !ev.LeaseUntil.IsZero() {
		until := ev.LeaseUntil
		e.LeaseUntil = &until
	}
	t := explain(r.name, ev)
	e.Say, e.Explain = &t, t.English()
	return e
}

func ids(list []uuid.UUID) Text {
	parts := make([]string, len(list))
	for i, id := range list {
		parts[i] = short(id)
	}
	if len(parts) > 3 {
		return text("%s and %d more", strings.Join(parts[:3], ", "), len(parts)-3)
	}
	return Text{Key: "%s", Args: []any{strings.Join(parts, ", ")}}
}

// detail is the actor's own short sentence, in parentheses (none if it
// gave none).
func detail(ev engine.Event) Text {
	if ev.Detail.IsZero() {
		return Text{}
	}
	return Text{Key: " (%s)", Args: []any{ev.Detail}} // the same in every language
}

// explain says what reaching a checkpoint means, and what a crash right here
// would cost.
func explain(who string, ev engine.Event) Text {
	m, pay := ids(ev.MessageIDs), ""
	if ev.PaymentID != uuid.Nil {
		pay = short(ev.PaymentID)
	}
	switch ev.Checkpoint {
	case engine.APIBegin:
		return text("%s begins a transaction for the payment request", who)
	case engine.APIInserted:
		return text("%s inserted payment %s and its outbox row %s in one transaction, not committed yet: a crash now leaves neither", who, pay, m)
	case engine.APICommitted:
		return text("%s committed payment %s and event %s together: from now on the event cannot be lost", who, pay, m)
	case engine.APIReplayed:
		return text("%s found the Idempotency-Key: it returns the stored response and creates nothing", who)
	case engine.APIResolved:
		return text("%s resolved an ambiguous commit from the idempotency record: payment %s exists, nothing is created twice", who, pay)
	case engine.NaiveBegin:
		return text("%s begins a transaction for the payment (no outbox: it will publish to the broker itself)", who)
	case engine.NaiveInserted:
		return text("%s inserted payment %s, not committed yet", who, pay)
	case engine.NaiveCommitted:
		return text("%s committed payment %s; the event is not published yet: a crash now loses it for good", who, pay)
	case engine.NaivePublished:
		return text("%s published event %s to the broker%s; if the commit fails now, consumers act on a payment that never existed", who, m, detail(ev))
	case engine.RelayClaimed:
		if ev.Statement != nil && ev.Statement.Name == "poll_by_seq" {
			return text("%s read %d row(s) after its cursor, in seq order, with no lease and no SKIP LOCKED (%s): %s; a lower seq not committed yet is not seen", who, ev.Rows, ev.Detail, m)
		}
		if ev.Rows == 0 && len(ev.MessageIDs) == 0 {
			// An ordering claim that leased nothing while rows were ready (S20).
			return text("%s claimed nothing although events are ready: its ordering holds them back (%s)", who, ev.Detail)
		}
		return text("%s leased %d row(s) with FOR UPDATE SKIP LOCKED and committed the claim%s: %s", who, ev.Rows, detail(ev), m)
	case engine.RelayPublished:
		if ev.DedupDropped {
			return text("%s published %s again: the broker had taken this id within its dedup window, so it acked a duplicate and dropped it: no consumer sees it twice (not marked yet)", who, m)
		}
		if ev.Detail.Format == engine.CDCPublishedDetail {
			return text("%s published %s from the slot's stream; its LSN is not confirmed yet: a crash now restarts the stream at the last confirmed LSN and publishes it again, same id", who, m)
		}
		return text("%s published %s with no transaction open; not marked yet: a crash now means it is published again, same id", who, m)
	case engine.RelayReceived:
		return text("%s received %d inserted outbox row(s) from its replication slot (%s), committed before the step began: no poll, no claim, no lease; nothing confirmed yet: %s", who, ev.Rows, ev.Detail, m)
	case engine.RelayConfirmed:
		return text("%s confirmed its LSN to the slot: a restart resumes after it, and the server may free the WAL before it", who)
	case engine.RelayMarked:
		if ev.Statement != nil && ev.Statement.Name == "cdc_mark_published" {
			return text("%s wrote published_at on %d row(s), for retention only: the CDC relay never reads it, its slot says what was sent; the LSN is still not confirmed", who, ev.Rows)
		}
		if ev.Statement != nil && ev.Statement.Name == "advance_cursor" {
			return text("%s marked %d row(s) published and moved its cursor (%s): it never reads a lower seq again", who, ev.Rows, ev.Detail)
		}
		return text("%s marked %d row(s) published, only where it still holds the lease", who, ev.Rows)
	case engine.RelayRetryScheduled:
		return text("%s could not publish %s: retry scheduled with backoff and jitter%s", who, m, detail(ev))
	case engine.RelayDeadLettered:
		return text("%s gave up on %s: dead-lettered with a sanitized error; it is never claimed again until requeued%s", who, m, detail(ev))
	case engine.RelayLeaseLost:
		return text("%s's lease on %s expired and another worker took it: the mark is refused, nothing overwritten%s", who, m, detail(ev))
	case engine.BrokerDelivered:
		if ev.Delivery > 1 {
			if !ev.Detail.IsZero() {
				// The detail says the delivery's number already ("to
				// accounting, delivery 2"): said twice, it read doubled.
				return text("the broker delivers %s again%s: at-least-once means duplicates", m, detail(ev))
			}
			return text("the broker delivers %s again (delivery %d)%s: at-least-once means duplicates", m, ev.Delivery, detail(ev))
		}
		return text("the broker delivers %s%s", m, detail(ev))
	case engine.ConsumerInboxInserted:
		if ev.Statement != nil && strings.HasPrefix(ev.Statement.Name, "find_") {
			// The wrong way (S18): a SELECT decides, holding no lock.
			return text("%s SELECTs for an earlier effect of %s and finds %d: with no lock and no unique key, a concurrent duplicate finds nothing either", who, m, ev.Rows)
		}
		if ev.InboxKey != uuid.Nil {
			// The wrong way (S22): the key is the trace id, which every
			// event of one request shares.
			if ev.Rows == 0 {
				return text("the inbox insert of %s for %s under its trace id %s hit the unique key: 0 rows, because an earlier event of the same trace is there, not this message", who, m, short(ev.InboxKey))
			}
			return text("%s recorded %s in its inbox under its trace id %s (1 row), not its message id: a later event of the same trace will collide with it", who, m, short(ev.InboxKey))
		}
		if ev.Rows == 0 {
			return text("the inbox insert of %s for %s hit the unique key: 0 rows, it has seen this message", who, m)
		}
		return text("%s recorded %s in its inbox (1 row), in the same transaction as the effect to come", who, m)
	case engine.ConsumerDuplicate:
		if ev.InboxKey != uuid.Nil {
			return text("%s takes %s, a new event, for a duplicate of trace %s: it commits and ACKs with no effect, so this event's effect is suppressed", who, m, short(ev.InboxKey))
		}
		return text("%s ignores duplicate %s: it commits and ACKs, no second effect", who, m)
	case engine.ConsumerVersionGap:
		if ev.Statement != nil && ev.Statement.Name == "park_message" {
			return text("%s parks %s: it is ahead of its aggregate's next version (%s); kept in parked_messages, committed and ACKed, applied when the gap fills", who, m, ev.Detail)
		}
		return text("%s refuses %s: unexpected aggregate_version%s; not applied out of order", who, m, detail(ev))
	case engine.ConsumerEffectApplied:
		return text("%s applied its effect for payment %s, not committed yet: a crash now rolls back marker and effect together", who, pay)
	case engine.ConsumerCommitted:
		switch ev.External {
		case engine.ExternalMarkerBefore:
			return text("%s committed the inbox marker and the ledger entry of %s; the card is not charged yet: a crash now loses the charge, for the redelivery is a duplicate to the inbox", who, m)
		case engine.ExternalSecondOutbox:
			return text("%s committed the inbox marker, the ledger entry and the charge's row in the second outbox for %s, together: the sender makes the charge, keyed by the message id", who, m)
		}
		return text("%s committed the inbox marker and the effect of %s; not ACKed yet: a crash now means a redelivery, which the inbox will absorb", who, m)
	case engine.ConsumerCalled:
		switch ev.External {
		case engine.ExternalMarkerBefore:
			return text("%s called the card provider for payment %s after committing its marker%s; not ACKed yet: a redelivery now is a duplicate, and the charge stands", who, pay, detail(ev))
		case engine.ExternalProviderKey:
			return text("%s called the card provider for payment %s%s inside its inbox transaction, not committed: a crash now rolls the marker back, and the redelivery's call with the same key gets this charge back", who, pay, detail(ev))
		}
		return text("%s called the card provider for payment %s%s inside its inbox transaction, not committed: a crash now rolls the marker back, and the redelivery charges the card again", who, pay, detail(ev))
	case engine.SenderCalled:
		return text("%s made the charge of %s with the provider%s; not marked sent yet: a crash now sends it again, and the key makes the provider answer this charge", who, m, detail(ev))
	case engine.SenderMarked:
		return text("%s marked the charge of %s sent in the second outbox (%d row)", who, m, ev.Rows)
	case engine.ConsumerAcked:
		return text("%s ACKed %s: the broker forgets it", who, m)
	}
	return text("%s reached %s%s", who, ev.Checkpoint, detail(ev))
}

// explainCrash says what a crash left behind, where it happened; a relay's
// leases are read from the table.
func (s *Sim) explainCrash(ctx context.Context, r *runner) (Text, error) {
	switch r.at {
	case engine.RelayReceived, engine.RelayPublished, engine.RelayMarked:
		if s.settings.CDC {
			return text("%s crashed at %s: its replication stream closed before it confirmed the LSN; the slot keeps its last confirmed position (and the WAL after it): restarted, it receives the same inserts again and publishes them again (same id)", r.name, r.at), nil
		}
	}
	switch r.at {
	case engine.RelayPublished, engine.RelayClaimed:
		var until *time.Time
		if err := r.pipe.pool.QueryRow(ctx, sqlLeaseEnd, r.lastIDs, s.clock.Peek()).Scan(&until); err != nil {
			return Text{}, fmt.Errorf("read %s's leases: %w", r.name, err)
		}
		if until != nil {
			return text("%s crashed at %s: its connection closed without COMMIT; its lease stays in the table until %s, then a relay reclaims the row and publishes it again (same id)", r.name, r.at, until.Format("15:04:05")), nil
		}
		if s.settings.LeaseForever {
			return text("%s crashed at %s: its connection closed without COMMIT; its lease has no end, so the row stays leased to a worker that no longer exists: no relay, its own restart included, may ever claim it", r.name, r.at), nil
		}
		if s.settings.SeqCursor {
			return text("%s crashed at %s: its connection closed without COMMIT; it held no lease and its cursor did not move: restarted, it reads the same rows again and publishes them again (same id)", r.name, r.at), nil
		}
		if s.settings.HoldTx {
			return text("%s crashed at %s: its connection closed without COMMIT; it held its claim's transaction open, so the claim rolled back with it: no lease is left, and a relay can claim the row again now", r.name, r.at), nil
		}
		return text("%s crashed at %s: its connection closed without COMMIT; its lease has already expired: a relay can claim the row again now", r.name, r.at), nil
	case engine.NaiveCommitted:
		// Reached after its COMMIT: the connection closed with nothing open.
		return text("%s crashed at %s, after its COMMIT: the payment is committed and its event was never published: it is lost", r.name, r.at), nil
	case engine.APICommitted:
		return text("%s crashed at %s, after its COMMIT: payment and event were committed together, so the relay will publish it", r.name, r.at), nil
	case engine.ConsumerCommitted:
		if r.name == "accounting" && s.settings.Effect == string(engine.ExternalMarkerBefore) {
			return text("%s crashed at %s: its marker and ledger entry are committed and its call to the card provider was never made: the redelivery is a duplicate to the inbox, and the card is never charged", r.name, r.at), nil
		}
		return text("%s crashed at %s, after its COMMIT: its work is committed, the delivery is not ACKed: the broker redelivers it after the ack timeout", r.name, r.at), nil
	case engine.ConsumerCalled:
		switch s.settings.Effect {
		case string(engine.ExternalMarkerBefore):
			return text("%s crashed at %s: marker, ledger entry and charge were all done, the ACK was not: the redelivery is a duplicate", r.name, r.at), nil
		case string(engine.ExternalProviderKey):
			return text("%s crashed at %s: its transaction rolled back, marker included, after the card was charged with the message id as the key: the redelivery calls again and the provider answers the same charge", r.name, r.at), nil
		}
		return text("%s crashed at %s: its transaction rolled back, marker included, after the card was charged: the redelivery is new to the inbox and charges the card again", r.name, r.at), nil
	case engine.SenderCalled:
		return text("%s crashed at %s: the provider charged, the row is not marked sent: restarted, the sender sends it again with the same key and the provider answers the first charge", r.name, r.at), nil
	case engine.ConsumerEffectApplied, engine.ConsumerInboxInserted:
		return text("%s crashed at %s: its connection closed without COMMIT; marker and effect roll back together, the delivery stays with the broker", r.name, r.at), nil
	case engine.BrokerDelivered:
		return text("%s crashed at %s: its connection closed without COMMIT; the unACKed delivery stays with the broker until its ack timeout", r.name, r.at), nil
	}
	return text("%s crashed at %s: its connection closed without COMMIT", r.name, r.at), nil
}

func answerErr(actor string, err error) Text {
	switch {
	case errors.Is(err, engine.ErrIdempotencyConflict):
		return text("%s answered 422: that Idempotency-Key was used with another body", actor)
	case errors.Is(err, engine.ErrAmbiguousCommit):
		return text("%s lost its connection during COMMIT: the outcome is unknown to the client", actor)
	case errors.Is(err, engine.ErrCommitFailed):
		return text("%s's COMMIT failed: the transaction rolled back", actor)
	}
	return text("%s failed: %v", actor, err)
}
