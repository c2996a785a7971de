package engine

import (
	"context"
	"testing"
	"time"
)

// S24: the nine figures, from the database and the counters.
func TestSnapshot(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.seed(t, 4)
	b.clock.Advance(2 * time.Second)
	r := NewRelay(RelayConfig{Name: "relay-1", Connect: b.connect, Publisher: b.broker, Clock: b.clock, Counters: b.counters, BatchSize: 3})
	defer r.Close(ctx)
	must[RelayStepResult](t)(r.Step(ctx)) // 3 published, 1 pending
	b.clock.Advance(time.Second)
	c := b.consumer(t, "accounting", StrategyInbox, nil)
	b.broker.DuplicateNext()
	for range 4 {
		must[ConsumeResult](t)(c.Step(ctx))
	}
	b.clock.Advance(time.Second)
	m := must[Metrics](t)(Snapshot(ctx, b.conn(t), b.clock.Now(), b.counters))
	want := Metrics{OutboxPendingTotal: 1, OldestPendingAge: 4 * time.Second, PublishesPerSecond: 3.0 / 60, AttemptsPerMessage: 1,
		DeadLetters: 0, ExpiredLeasesRecovered: 0, InboxDuplicatesIgnored: 1}
	if m.OutboxPendingTotal != want.OutboxPendingTotal || m.OldestPendingAge != want.OldestPendingAge || m.PublishesPerSecond != want.PublishesPerSecond ||
		m.AttemptsPerMessage != want.AttemptsPerMessage || m.DeadLetters != 0 || m.ExpiredLeasesRecovered != 0 || m.InboxDuplicatesIgnored != 1 {
		t.Errorf("snapshot %+v\nwant %+v", m, want)
	}
	if m.OccurredToPublished.Count != 3 || m.OccurredToPublished.P50 != 2*time.Second {
		t.Errorf("occurred→published %+v, want 3 samples of 2s", m.OccurredToPublished)
	}
	if m.PublishedToProcessed.Count != 3 || m.PublishedToProcessed.Max != time.Second {
		t.Errorf("published→processed %+v, want 3 samples, max 1s", m.PublishedToProcessed)
	}
	if c := m.Counted; c.Claimed != 3 || c.Published != 3 || c.Marked != 3 || c.Processed != 3 || c.DuplicatesIgnored != 1 {
		t.Errorf("counted %+v, want 3 claimed, published, marked and processed, 1 duplicate", c)
	}
	if b := m.OccurredToPublished.Buckets; b[0] != 0 || b[len(b)-1] != 3 {
		t.Errorf("occurred→published buckets %v, want none within half a millisecond and 3 within the last bound", b)
	}
}
