package engine

import (
	"context"
	"testing"
	"time"
)

// S23: with the inbox kept longer than the redelivery window an old
// redelivery is a duplicate; pruned too early, the same redelivery is taken
// as new and the effect happens twice.
func TestInboxPrunedTooEarly(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		inboxKeep      time.Duration
		ignoreVersions bool
		wantEntries    int64
		wantOutcome    Outcome
	}{
		{"kept longer than redeliveries", 7 * 24 * time.Hour, true, 1, OutcomeDuplicate},
		{"pruned too early", time.Hour, true, 2, OutcomeApplied},
		// The per-aggregate position is never pruned: for ordered events it
		// still refuses the old copy (a stale version), a second line of defence.
		{"pruned too early, versions checked", time.Hour, false, 1, OutcomeParked},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			resp := b.publishPayment(t)
			c := NewConsumer(ConsumerConfig{Name: "accounting", Connect: b.connect, Subscriber: b.broker, Clock: b.clock, IgnoreVersions: tc.ignoreVersions})
			defer c.Close(ctx)
			if res := must[ConsumeResult](t)(c.Step(ctx)); res.Outcome != OutcomeApplied {
				t.Fatalf("first delivery %v", res.Outcome)
			}
			b.clock.Advance(2 * time.Hour)
			res := must[PruneResult](t)(Prune(ctx, b.conn(t), PruneOptions{InboxOlderThan: tc.inboxKeep, Now: b.clock.Now(), BatchSize: 1}))
			// An old copy comes back: e.g. a relay whose mark was lost republishes it.
			env := must[Envelope](t)(b.envelope(t, resp.EventID))
			if err := b.broker.Publish(ctx, newMessage(env, TopicPayments, "relay-old")); err != nil {
				t.Fatal(err)
			}
			got := must[ConsumeResult](t)(c.Step(ctx))
			if got.Outcome != tc.wantOutcome {
				t.Errorf("old redelivery: %v, want %v (pruned %d markers)", got.Outcome, tc.wantOutcome, res.Inbox)
			}
			if n := b.count(t, "SELECT count(*) FROM ledger_entries WHERE message_id = $1", resp.EventID); n != tc.wantEntries {
				t.Errorf("ledger entries %d, want %d", n, tc.wantEntries)
			}
		})
	}
}

// Outbox retention removes only published rows past the horizon, in batches.
func TestPruneOutbox(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.seed(t, 7)
	must[RelayStepResult](t)(b.relay(t, "relay-1", nil).Step(ctx)) // publishes all 7
	pending := b.seed(t, 2)                                        // never published
	b.clock.Advance(48 * time.Hour)
	res := must[PruneResult](t)(Prune(ctx, b.conn(t), PruneOptions{OutboxOlderThan: 24 * time.Hour, Now: b.clock.Now(), BatchSize: 3}))
	if res.Outbox != 7 || res.Inbox != 0 {
		t.Fatalf("pruned %+v, want 7 outbox rows", res)
	}
	if n := b.count(t, "SELECT count(*) FROM outbox_messages WHERE id = ANY($1)", pending); n != 2 {
		t.Errorf("unpublished rows pruned: %d left of 2", n)
	}
}
