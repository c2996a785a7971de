package engine

import (
	"context"
	"testing"
)

// S1: commit, then crash before publishing: the payment exists and no
// consumer ever hears of it.
func TestNaiveCommitThenPublishLosesEvent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	n := NewNaiveWriter(NaiveWriterConfig{Connect: b.connect, Clock: b.clock, Publisher: b.broker, Hook: faultAt(NaiveCommitted, ErrCrash)})
	defer n.Close(context.Background())
	resp, err := n.CommitThenPublish(context.Background(), payment("c1"))
	mustErrIs(t, err, ErrCrash)
	if got := b.count(t, "SELECT count(*) FROM payments WHERE id = $1", resp.PaymentID); got != 1 {
		t.Fatalf("payment rows %d, want 1 (committed)", got)
	}
	res := must[ConsumeResult](t)(b.consumer(t, "accounting", StrategyInbox, nil).Step(context.Background()))
	if res.Outcome != OutcomeIdle || b.broker.Stats().Published != 0 {
		t.Fatalf("consumer %v, broker published %d: the event should be lost", res.Outcome, b.broker.Stats().Published)
	}
	if got := b.count(t, "SELECT count(*) FROM ledger_entries"); got != 0 {
		t.Errorf("ledger entries %d, want 0: the lost event", got)
	}
	if got := b.count(t, "SELECT count(*) FROM outbox_messages"); got != 0 {
		t.Errorf("the naive writer wrote %d outbox rows", got)
	}
}

// S2: publish, then the COMMIT fails: the consumer books a payment that
// never existed.
func TestNaivePublishThenCommitPhantom(t *testing.T) {
	t.Parallel()
	b := setup(t)
	n := NewNaiveWriter(NaiveWriterConfig{Connect: b.connect, Clock: b.clock, Publisher: b.broker, Hook: faultAt(NaivePublished, ErrFailCommit)})
	defer n.Close(context.Background())
	resp, err := n.PublishThenCommit(context.Background(), payment("c1"))
	mustErrIs(t, err, ErrCommitFailed)
	res := must[ConsumeResult](t)(b.consumer(t, "accounting", StrategyInbox, nil).Step(context.Background()))
	if res.Outcome != OutcomeApplied {
		t.Fatalf("consumer outcome %v, want applied", res.Outcome)
	}
	if got := b.count(t, "SELECT count(*) FROM payments WHERE id = $1", resp.PaymentID); got != 0 {
		t.Fatalf("payment rows %d, want 0 (rolled back)", got)
	}
	phantoms := b.count(t, `SELECT count(*) FROM ledger_entries l WHERE NOT EXISTS (SELECT 1 FROM payments p WHERE p.id = l.payment_id)`)
	if phantoms != 1 {
		t.Errorf("phantom ledger entries %d, want 1", phantoms)
	}
}

// The happy paths of both naive orders deliver once.
func TestNaiveHappyPaths(t *testing.T) {
	t.Parallel()
	b := setup(t)
	n := NewNaiveWriter(NaiveWriterConfig{Connect: b.connect, Clock: b.clock, Publisher: b.broker})
	defer n.Close(context.Background())
	must[PaymentResponse](t)(n.CommitThenPublish(context.Background(), payment("c1")))
	must[PaymentResponse](t)(n.PublishThenCommit(context.Background(), payment("c2")))
	c := b.consumer(t, "accounting", StrategyInbox, nil)
	for range 2 {
		if res := must[ConsumeResult](t)(c.Step(context.Background())); res.Outcome != OutcomeApplied {
			t.Fatalf("outcome %v", res.Outcome)
		}
	}
	if got := b.count(t, `SELECT count(*) FROM ledger_entries l JOIN payments p ON p.id = l.payment_id`); got != 2 {
		t.Errorf("ledger entries for real payments %d, want 2", got)
	}
}
