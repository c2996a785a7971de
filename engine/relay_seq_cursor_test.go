package engine

import (
	"context"
	"testing"
)

// Commit order is not seq order. Writer A inserts first (the
// lower seq) and commits after writer B; the seq-cursor relay polls between
// the two commits and moves its cursor past A's row for ever. The right relay
// (SKIP LOCKED, published_at IS NULL) publishes A's row once it commits.
func TestSeqCursorLosesALateCommit(t *testing.T) {
	t.Parallel()
	for _, seqCursor := range []bool{true, false} {
		b := setup(t)
		ctx := context.Background()
		inserted, commit := make(chan struct{}), make(chan struct{})
		hookA := func(_ context.Context, ev Event) error {
			if ev.Checkpoint == APIInserted {
				close(inserted)
				<-commit
			}
			return nil
		}
		type result struct {
			resp PaymentResponse
			err  error
		}
		doneA := make(chan result, 1)
		wa := b.writer(t, hookA)
		go func() {
			resp, err := wa.CreatePayment(ctx, payment("a"))
			doneA <- result{resp, err}
		}()
		<-inserted
		respB := must[PaymentResponse](t)(b.writer(t, nil).CreatePayment(ctx, payment("b")))

		relay := NewRelay(RelayConfig{Name: "relay-1", Connect: b.connect, Publisher: b.broker, Clock: b.clock, Counters: b.counters, SeqCursor: seqCursor})
		t.Cleanup(func() { _ = relay.Close(context.Background()) })
		res := must[RelayStepResult](t)(relay.Step(ctx))
		if res.Published != 1 || res.MessageIDs[0] != respB.EventID {
			t.Fatalf("seqCursor=%v: first poll published %d (%v), want B's row alone", seqCursor, res.Published, res.MessageIDs)
		}
		close(commit)
		a := <-doneA
		if a.err != nil {
			t.Fatal(a.err)
		}
		res = must[RelayStepResult](t)(relay.Step(ctx))
		published := b.row(t, a.resp.EventID).publishedAt != nil
		if seqCursor && (!res.Idle || published) {
			t.Errorf("seq cursor after A's commit: %+v, A published %v; want idle and A never published", res, published)
		}
		if !seqCursor && (res.Published != 1 || !published) {
			t.Errorf("SKIP LOCKED after A's commit: %+v, A published %v; want A published", res, published)
		}
		var last int64
		err := b.pool.QueryRow(ctx, `SELECT COALESCE((SELECT last_seq FROM relay_offsets WHERE relay_name = 'relay-1'), 0)`).Scan(&last)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int64{true: 2, false: 0}[seqCursor]; last != want {
			t.Errorf("seqCursor=%v: cursor %d, want %d", seqCursor, last, want)
		}
	}
}

// A refused publish leaves the seq cursor where it was: the step reports
// Idle (no spinning), the row stays unpublished with no attempt counted and
// no retry scheduled, and the next poll reads it again.
func TestSeqCursorRefusedPublishKeepsCursor(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := b.seed(t, 1)
	relay := NewRelay(RelayConfig{Name: "relay-1", Connect: b.connect, Publisher: failingPublisher{}, Clock: b.clock, Counters: b.counters, SeqCursor: true})
	t.Cleanup(func() { _ = relay.Close(context.Background()) })
	for range 2 {
		res := must[RelayStepResult](t)(relay.Step(ctx))
		if !res.Idle || res.Claimed != 1 || res.Published != 0 {
			t.Fatalf("refused publish: %+v, want the row read, nothing published, idle", res)
		}
	}
	if r := b.row(t, ids[0]); r.publishedAt != nil || r.attempts != 0 || r.lastError != nil {
		t.Errorf("row after refused publishes: %+v", r)
	}
	var n int
	if err := b.pool.QueryRow(ctx, `SELECT count(*) FROM relay_offsets`).Scan(&n); err != nil || n != 0 {
		t.Errorf("relay_offsets rows %d (%v), want none: the cursor never moved", n, err)
	}
}
