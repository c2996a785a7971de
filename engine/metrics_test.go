package engine

import (
	"context"
	"fmt"
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

// "occurred → published" is one sample per row, taken at its mark: a publish
// that a crash kept from being marked counts nothing, so the figure is what
// the table shows (published_at - occurred_at), not the first try's 0s.
func TestOccurredToPublishedIsCountedAtTheMark(t *testing.T) {
	t.Parallel()
	for _, pipeline := range []bool{false, true} {
		t.Run(map[bool]string{false: "step", true: "pipeline"}[pipeline], func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			id := b.seed(t, 1)[0]
			r1 := b.relay(t, "relay-1", faultAt(RelayPublished, ErrCrash))
			_, err := r1.Step(ctx)
			mustErrIs(t, err, ErrCrash)
			if s := b.counters.OccurredToPublished.Summary(); s.Count != 0 {
				t.Fatalf("after a publish that was not marked: %d samples, want 0", s.Count)
			}
			b.clock.Advance(31 * time.Second)
			r2 := NewRelay(RelayConfig{Name: "relay-2", Connect: b.connect, Publisher: b.broker, Clock: b.clock, Counters: b.counters, Pipeline: pipeline})
			defer r2.Close(ctx)
			for range 3 { // a pipelined relay reads its marks on the steps after
				must[RelayStepResult](t)(r2.Step(ctx))
			}
			var want time.Duration
			if err := b.conn(t).QueryRow(ctx, "SELECT extract(epoch FROM published_at - occurred_at)::float8 * 1e9 FROM outbox_messages WHERE id = $1", id).
				Scan((*float64Duration)(&want)); err != nil {
				t.Fatal(err)
			}
			s := b.counters.OccurredToPublished.Summary()
			if s.Count != 1 || s.P50 != want || want < 31*time.Second {
				t.Errorf("occurred→published %d samples, p50 %s; the row was published %s after its event", s.Count, s.P50, want)
			}
		})
	}
}

// float64Duration scans a float of nanoseconds into a time.Duration.
type float64Duration time.Duration

func (d *float64Duration) Scan(src any) error {
	f, ok := src.(float64)
	if !ok {
		return fmt.Errorf("float64Duration: %T", src)
	}
	*d = float64Duration(time.Duration(f))
	return nil
}
