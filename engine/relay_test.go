package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/internal/testrun"
)

// seed writes n payments (and events) in one transaction and returns the event ids.
func (b *bundle) seed(t testing.TB, n int) []uuid.UUID {
	t.Helper()
	reqs := make([]PaymentRequest, n)
	for i := range reqs {
		reqs[i] = payment(fmt.Sprintf("client-%d", i))
	}
	resps := must[[]PaymentResponse](t)(b.writer(t, nil).CreatePayments(context.Background(), reqs))
	ids := make([]uuid.UUID, n)
	for i, r := range resps {
		ids[i] = r.EventID
	}
	return ids
}

type outboxRow struct {
	attempts     int
	lockID       *uuid.UUID
	lockedUntil  *time.Time
	nextAttempt  time.Time
	publishedAt  *time.Time
	deadLettered *time.Time
	lastError    *string
}

func (b *bundle) row(t *testing.T, id uuid.UUID) outboxRow {
	t.Helper()
	var r outboxRow
	err := b.pool.QueryRow(context.Background(), `SELECT attempts, lock_id, locked_until, next_attempt_at, published_at, dead_lettered_at, last_error
		FROM outbox_messages WHERE id = $1`, id).Scan(&r.attempts, &r.lockID, &r.lockedUntil, &r.nextAttempt, &r.publishedAt, &r.deadLettered, &r.lastError)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// S9/S10: claim leases ready rows in order, sets lock_id, locked_until, attempts.
func TestRelayStepClaimPublishMark(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := b.seed(t, 3)
	var order []uuid.UUID
	hook := func(_ context.Context, ev Event) error {
		if ev.Checkpoint == RelayPublished {
			order = append(order, ev.MessageIDs...)
		}
		return nil
	}
	r := b.relay(t, "relay-1", hook)
	res := must[RelayStepResult](t)(r.Step(context.Background()))
	if res.Claimed != 3 || res.Published != 3 || res.Marked != 3 || res.Idle {
		t.Fatalf("step %+v", res)
	}
	published := map[uuid.UUID]bool{}
	for _, id := range order {
		published[id] = true
	}
	for _, id := range ids {
		row := b.row(t, id)
		if row.publishedAt == nil || !row.publishedAt.Equal(b.clock.Now()) || row.lockID != nil || row.attempts != 1 || !published[id] {
			t.Errorf("row %s: %+v", id, row)
		}
	}
	if res := must[RelayStepResult](t)(r.Step(context.Background())); !res.Idle {
		t.Errorf("second step %+v, want idle", res)
	}
}

// S25 #3: two relays never hold one lease. Relay-1 stops right after its
// claim committed; relay-2 claims meanwhile and gets only other rows.
// Then both run concurrently to the end: every row published exactly once.
func TestTwoRelaysNeverHoldOneLease(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := b.seed(t, 120)
	ctx := context.Background()

	hook, reached, release := pauseAt(RelayClaimed)
	r1 := b.relay(t, "relay-1", hook)
	r2 := b.relay(t, "relay-2", nil)
	var res1 RelayStepResult
	var err1 error
	done := make(chan struct{})
	go func() { res1, err1 = r1.Step(ctx); close(done) }()
	<-reached
	held := map[uuid.UUID]int{}
	rows, err := b.pool.Query(ctx, `SELECT id FROM outbox_messages WHERE lock_id = $1`, r1.WorkerID())
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id uuid.UUID
		_ = rows.Scan(&id)
		held[id]++
	}
	rows.Close()
	res2 := must[RelayStepResult](t)(r2.Step(ctx))
	for _, id := range res2.MessageIDs {
		if held[id] > 0 {
			t.Errorf("message %s claimed by both relays", id)
		}
	}
	if len(held) != 25 || res2.Claimed != 25 {
		t.Errorf("relay-1 holds %d, relay-2 claimed %d; want 25 each", len(held), res2.Claimed)
	}
	close(release)
	<-done
	if err1 != nil || res1.Marked != 25 {
		t.Fatalf("relay-1: %+v %v", res1, err1)
	}

	drainConcurrently(t, ctx, r1, r2)
	st := b.broker.Stats()
	for _, id := range ids {
		if st.PublishesByID[id] != 1 {
			t.Errorf("message %s published %d times, want 1", id, st.PublishesByID[id])
		}
	}
	if n := b.count(t, `SELECT count(*) FROM outbox_messages WHERE published_at IS NULL OR attempts <> 1`); n != 0 {
		t.Errorf("%d rows unpublished or claimed twice", n)
	}
}

// S25 #4, S13: the broker accepted the message and the relay died before
// marking it. After the lease expires another relay publishes the SAME id
// again; the inbox keeps the effect single.
func TestCrashAfterPublishRepeatsID(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.seed(t, 1)[0]
	r1 := b.relay(t, "relay-1", faultAt(RelayPublished, ErrCrash))
	_, err := r1.Step(ctx)
	mustErrIs(t, err, ErrCrash)
	row := b.row(t, id)
	if row.publishedAt != nil || row.lockID == nil || *row.lockID != r1.WorkerID() {
		t.Fatalf("after the crash: %+v, want unpublished and still leased by relay-1", row)
	}
	r2 := b.relay(t, "relay-2", nil)
	if res := must[RelayStepResult](t)(r2.Step(ctx)); !res.Idle {
		t.Fatalf("relay-2 claimed %d rows under a live lease", res.Claimed)
	}
	b.clock.Advance(31 * time.Second)
	res := must[RelayStepResult](t)(r2.Step(ctx))
	if res.Published != 1 || res.Marked != 1 || res.Recovered != 1 {
		t.Fatalf("relay-2: %+v", res)
	}
	if got := b.broker.Stats().PublishesByID[id]; got != 2 {
		t.Fatalf("id %s published %d times, want 2", id, got)
	}
	c := b.consumer(t, "accounting", StrategyInbox, nil)
	outcomes := []Outcome{must[ConsumeResult](t)(c.Step(ctx)).Outcome, must[ConsumeResult](t)(c.Step(ctx)).Outcome}
	if outcomes[0] != OutcomeApplied || outcomes[1] != OutcomeDuplicate {
		t.Errorf("outcomes %v, want applied then duplicate", outcomes)
	}
	if n := b.count(t, "SELECT count(*) FROM ledger_entries WHERE message_id = $1", id); n != 1 {
		t.Errorf("%d ledger entries, want 1", n)
	}
	if row := b.row(t, id); row.attempts != 2 {
		t.Errorf("attempts %d, want 2", row.attempts)
	}
}

// S25 #7, S14: with the broker down each claim raises attempts, the backoff is
// persisted in next_attempt_at, and nothing is claimed before it.
func TestBrokerDownRaisesAttemptsAndRespectsNextAttempt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.seed(t, 1)[0]
	b.broker.SetDown(true)
	r := b.relay(t, "relay-1", nil)
	for attempt := 1; attempt <= 4; attempt++ {
		before := b.clock.Now()
		res := must[RelayStepResult](t)(r.Step(ctx))
		if res.Retried != 1 || res.Published != 0 {
			t.Fatalf("attempt %d: %+v", attempt, res)
		}
		row := b.row(t, id)
		delay := RetryDelay(attempt)
		wait := row.nextAttempt.Sub(before)
		if row.attempts != attempt || wait < delay || wait > delay+delay/5 || row.lockID != nil ||
			row.lastError == nil || !strings.Contains(*row.lastError, "broker is down") {
			t.Fatalf("attempt %d: row %+v (wait %s, delay %s)", attempt, row, wait, delay)
		}
		b.clock.Advance(wait - time.Millisecond)
		if res := must[RelayStepResult](t)(r.Step(ctx)); !res.Idle {
			t.Fatalf("attempt %d: claimed before next_attempt_at", attempt)
		}
		b.clock.Advance(time.Millisecond)
	}
	b.broker.SetDown(false)
	res := must[RelayStepResult](t)(r.Step(ctx))
	if res.Published != 1 || res.Marked != 1 {
		t.Fatalf("after the outage: %+v", res)
	}
	if row := b.row(t, id); row.attempts != 5 || row.publishedAt == nil || row.lastError != nil {
		t.Errorf("row %+v", row)
	}
}

// failingPublisher refuses everything, with an error that carries what must
// never reach last_error: a credential URL, a password and a payload.
type failingPublisher struct{}

func (failingPublisher) Publish(_ context.Context, msg Message) error {
	return fmt.Errorf("amqp://relay:s3cr3t@broker.internal:5672 refused %s: password=hunter2 body=%s", msg.ID, msg.Payload)
}

// S25 #8, S15: a poison message is dead-lettered at attempt 12 with a
// sanitized error, never claimed again; Requeue brings it back with its id.
func TestPoisonReachesDeadLetter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.seed(t, 1)[0]
	r := NewRelay(RelayConfig{Name: "relay-1", Connect: b.connect, Publisher: failingPublisher{}, Clock: b.clock,
		Counters: b.counters, Rand: rand.New(rand.NewPCG(1, 2))})
	defer r.Close(ctx)
	var last RelayStepResult
	for attempt := 1; attempt <= 12; attempt++ {
		last = must[RelayStepResult](t)(r.Step(ctx))
		if last.Claimed != 1 {
			t.Fatalf("attempt %d claimed %d", attempt, last.Claimed)
		}
		b.clock.Advance(RetryDelay(attempt)*6/5 + time.Second) // past the delay and its jitter
	}
	if last.DeadLettered != 1 {
		t.Fatalf("12th attempt: %+v, want dead-lettered", last)
	}
	row := b.row(t, id)
	if row.deadLettered == nil || row.attempts != 12 || row.lockID != nil || row.publishedAt != nil || row.lastError == nil {
		t.Fatalf("row %+v", row)
	}
	for _, secret := range []string{"s3cr3t", "hunter2", "amount_cents", "payment_id"} {
		if strings.Contains(*row.lastError, secret) {
			t.Errorf("last_error leaks %q: %s", secret, *row.lastError)
		}
	}
	if len(*row.lastError) > MaxErrorLength || !strings.Contains(*row.lastError, "refused") {
		t.Errorf("last_error %q", *row.lastError)
	}
	b.clock.Advance(time.Hour)
	if res := must[RelayStepResult](t)(r.Step(ctx)); !res.Idle {
		t.Fatalf("a dead letter was claimed again: %+v", res)
	}

	conn := b.conn(t)
	mustErrIs(t, Requeue(ctx, conn, uuid.Must(uuid.NewV7()), b.clock.Now()), ErrNotFound)
	if err := Requeue(ctx, conn, id, b.clock.Now()); err != nil {
		t.Fatal(err)
	}
	good := b.relay(t, "relay-2", nil)
	res := must[RelayStepResult](t)(good.Step(ctx))
	if res.Published != 1 || res.MessageIDs[0] != id {
		t.Fatalf("after requeue: %+v", res)
	}
	if row := b.row(t, id); row.deadLettered != nil || row.publishedAt == nil || row.attempts != 1 {
		t.Errorf("after requeue: %+v", row)
	}
}

// S25 #9, S10: a lease that expires mid-publish is recovered by another
// relay; the slow owner's late mark is refused, not overwritten, and reported.
func TestExpiredLeaseIsRecovered(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.seed(t, 1)[0]
	hook, reached, release := pauseAt(RelayClaimed)
	slow := b.relay(t, "relay-1", hook)
	var slowRes RelayStepResult
	var slowErr error
	done := make(chan struct{})
	go func() { slowRes, slowErr = slow.Step(ctx); close(done) }()
	<-reached

	fast := b.relay(t, "relay-2", nil)
	if res := must[RelayStepResult](t)(fast.Step(ctx)); !res.Idle {
		t.Fatalf("claimed a live lease: %+v", res)
	}
	b.clock.Advance(30 * time.Second) // locked_until <= now: expired
	res := must[RelayStepResult](t)(fast.Step(ctx))
	if res.Claimed != 1 || res.Recovered != 1 || res.Marked != 1 {
		t.Fatalf("relay-2: %+v", res)
	}
	markedAt := *b.row(t, id).publishedAt

	b.clock.Advance(time.Second)
	close(release)
	<-done
	if slowErr != nil || slowRes.Published != 1 || slowRes.Marked != 0 || slowRes.LostLeases != 1 {
		t.Fatalf("relay-1 after its lease expired: %+v %v", slowRes, slowErr)
	}
	row := b.row(t, id)
	if row.attempts != 2 || row.publishedAt == nil || !row.publishedAt.Equal(markedAt) {
		t.Errorf("row %+v: relay-2's mark must stand", row)
	}
	if b.counters.LeasesRecovered.Load() != 1 || b.counters.LostLeases.Load() != 1 {
		t.Errorf("counters recovered %d lost %d", b.counters.LeasesRecovered.Load(), b.counters.LostLeases.Load())
	}
}

// A failed retry write propagates instead of pretending success; the row
// keeps its lease and is recovered later.
func TestRelayRetryWriteFailurePropagates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.seed(t, 1)[0]
	b.broker.SetDown(true)
	var r *Relay
	hook := func(ctx context.Context, ev Event) error {
		if ev.Checkpoint == RelayClaimed {
			// The database goes away between the claim and the retry write.
			_, err := b.pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, int32(r.db.PgConn().PID()))
			return err
		}
		return nil
	}
	r = b.relay(t, "relay-1", hook)
	_, err := r.Step(ctx)
	mustErrIs(t, err, ErrConnection)
	if row := b.row(t, id); row.lockID == nil || row.attempts != 1 {
		t.Errorf("row %+v: the claim stands, the retry was not written", row)
	}
}

// Cancellation propagates out of Step.
func TestRelayCancellationPropagates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seed(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	r := b.relay(t, "relay-1", func(_ context.Context, ev Event) error {
		if ev.Checkpoint == RelayClaimed {
			cancel()
		}
		return nil
	})
	_, err := r.Step(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// A pipelined relay (claims sent ahead, marks on its second connection)
// publishes every row once, in (occurred_at, id) order, and ends with every
// row marked and no lease left.
func TestRelayPipelineDrains(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.seed(t, 103)
	r := NewRelay(RelayConfig{Name: "relay-1", Connect: b.connect, Publisher: b.broker, Clock: b.clock, BatchSize: 10, Pipeline: true})
	defer r.Close(ctx)
	total := RelayStepResult{}
	for {
		res := must[RelayStepResult](t)(r.Step(ctx))
		total.Published += res.Published
		total.Marked += res.Marked
		if res.Idle {
			break
		}
	}
	if total.Published != 103 || total.Marked != 103 {
		t.Fatalf("published %d marked %d", total.Published, total.Marked)
	}
	if n := b.count(t, "SELECT count(*) FROM outbox_messages WHERE published_at IS NULL OR lock_id IS NOT NULL"); n != 0 {
		t.Errorf("%d rows unmarked or still leased", n)
	}
	var published []uuid.UUID
	for _, e := range b.broker.Log() {
		if e.Kind == "publish" {
			published = append(published, e.MessageID)
		}
	}
	rows, err := b.pool.Query(ctx, "SELECT id FROM outbox_messages ORDER BY occurred_at, id")
	if err != nil {
		t.Fatal(err)
	}
	want := must[[]uuid.UUID](t)(pgx.CollectRows(rows, pgx.RowTo[uuid.UUID]))
	if !slices.Equal(published, want) {
		t.Errorf("published %d messages out of (occurred_at, id) order or more than once", len(published))
	}
}

// drainPipelined steps a new pipelined relay (batches of 10) until nothing is ready.
func (b *bundle) drainPipelined(t *testing.T, name string) {
	t.Helper()
	r := NewRelay(RelayConfig{Name: name, Connect: b.connect, Publisher: b.broker, Clock: b.clock, BatchSize: 10, Pipeline: true})
	defer r.Close(context.Background())
	for {
		if res := must[RelayStepResult](t)(r.Step(context.Background())); res.Idle {
			return
		}
	}
}

// publishedOnce checks that the broker accepted each of ids exactly once.
func (b *bundle) publishedOnce(t *testing.T, ids []uuid.UUID) {
	t.Helper()
	stats := b.broker.Stats()
	for i, id := range ids {
		if n := stats.PublishesByID[id]; n != 1 {
			t.Errorf("message %d published %d times, want once", i+1, n)
		}
	}
}

// trackConnect wraps b.connect and keeps every connection it opened.
func (b *bundle) trackConnect() (Connect, func() []*pgx.Conn) {
	var mu sync.Mutex
	var opened []*pgx.Conn
	return func(ctx context.Context) (*pgx.Conn, error) {
			c, err := b.connect(ctx)
			if err == nil {
				mu.Lock()
				opened = append(opened, c)
				mu.Unlock()
			}
			return c, err
		}, func() []*pgx.Conn {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(opened)
		}
}

// A pipelined relay that dies leaves what any relay leaves, twice over: the
// batch it was publishing and the batch it had claimed ahead stay leased
// until the lease expires, both its connections are gone, and a new relay
// then publishes them (the one already published, again with the same id).
func TestRelayPipelineCrashLeavesBothLeases(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := b.seed(t, 35) // batches of 10: 1, 2, 3 (claimed ahead), then 5 more
	state := func(id uuid.UUID) string {
		var s string
		if err := b.pool.QueryRow(ctx, `SELECT CASE WHEN published_at IS NOT NULL THEN 'marked'
			WHEN lock_id IS NOT NULL THEN 'leased' ELSE 'ready' END FROM outbox_messages WHERE id = $1`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	steps := 0
	hook := func(_ context.Context, ev Event) error {
		if ev.Checkpoint == RelayClaimed {
			steps++
		}
		if ev.Checkpoint != RelayPublished || steps != 2 {
			return nil
		}
		// Batch 2's first message is with the broker. Die once the database
		// shows what step 1 and this step sent without waiting: batch 1's
		// marks and batch 3's claim.
		testrun.Eventually(t, 10*time.Second, "batch 1 marked and batch 3 claimed ahead", func() bool {
			return state(ids[9]) == "marked" && state(ids[29]) == "leased"
		})
		return ErrCrash
	}
	connect, opened := b.trackConnect()
	r1 := NewRelay(RelayConfig{Name: "relay-1", Connect: connect, Publisher: b.broker, Clock: b.clock, Hook: hook, BatchSize: 10, Pipeline: true})
	defer r1.Close(ctx)
	must[RelayStepResult](t)(r1.Step(ctx))
	_, err := r1.Step(ctx)
	mustErrIs(t, err, ErrCrash)
	conns := opened()
	if len(conns) != 2 {
		t.Fatalf("relay-1 opened %d connections, want 2 (claims and marks)", len(conns))
	}
	for i, c := range conns {
		if !c.IsClosed() {
			t.Errorf("connection %d of the dead relay still open", i+1)
		}
	}
	for i, id := range ids {
		want := map[int]string{0: "marked", 1: "leased", 2: "leased", 3: "ready"}[i/10]
		if got := state(id); got != want {
			t.Fatalf("message %d of 35 is %s after the crash, want %s", i+1, got, want)
		}
	}
	r2 := NewRelay(RelayConfig{Name: "relay-2", Connect: b.connect, Publisher: b.broker, Clock: b.clock, BatchSize: 10, Pipeline: true})
	defer r2.Close(ctx)
	drain := func() (recovered int) {
		for {
			res := must[RelayStepResult](t)(r2.Step(ctx))
			recovered += res.Recovered
			if res.Idle {
				return recovered
			}
		}
	}
	if n := drain(); n != 0 {
		t.Fatalf("relay-2 recovered %d rows under live leases", n)
	}
	b.clock.Advance(31 * time.Second)
	if n := drain(); n != 20 {
		t.Fatalf("relay-2 recovered %d rows after the leases expired, want 20 (batches 2 and 3)", n)
	}
	stats := b.broker.Stats()
	for i, id := range ids {
		want := 1
		if i == 10 {
			want = 2 // published by relay-1 just before it died, then by relay-2
		}
		if got := stats.PublishesByID[id]; got != want || state(id) != "marked" {
			t.Errorf("message %d: published %d times (want %d), %s", i+1, got, want, state(id))
		}
	}
}

// failSome refuses the messages in bad and passes the others to the broker.
type failSome struct {
	broker *Broker
	bad    map[uuid.UUID]bool
}

func (f failSome) Publish(ctx context.Context, m Message) error {
	if f.bad[m.ID] {
		return fmt.Errorf("publish %s: %w", m.ID, ErrBrokerDown)
	}
	return f.broker.Publish(ctx, m)
}

// A publish failure in a pipelined relay writes its retry on the marks
// connection, after reading the marks in flight there, while the next claim
// runs on the other; nothing is lost or left leased.
func TestRelayPipelineSchedulesRetries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		failing       func(ids []uuid.UUID) []uuid.UUID
		retried       []int // per step until idle
		marked        []int
		wantPublished int64
	}{
		{"broker down", func(ids []uuid.UUID) []uuid.UUID { return ids }, []int{10, 10, 5}, []int{0, 0, 0}, 0},
		// Batch 1's marks are in flight when batch 2's first failure needs
		// the marks connection: they are read (and reported) first.
		{"two of batch 2", func(ids []uuid.UUID) []uuid.UUID { return ids[13:15] }, []int{0, 2, 0}, []int{0, 10, 8}, 23},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			ids := b.seed(t, 25)
			bad := map[uuid.UUID]bool{}
			for _, id := range tc.failing(ids) {
				bad[id] = true
			}
			r := NewRelay(RelayConfig{Name: "relay-1", Connect: b.connect, Publisher: failSome{b.broker, bad}, Clock: b.clock, BatchSize: 10, Pipeline: true})
			defer r.Close(ctx)
			var retried, marked []int
			for {
				res := must[RelayStepResult](t)(r.Step(ctx))
				if res.Idle {
					break
				}
				retried, marked = append(retried, res.Retried), append(marked, res.Marked)
			}
			if !slices.Equal(retried, tc.retried) || !slices.Equal(marked, tc.marked) {
				t.Fatalf("per step: retried %v, marked %v; want %v, %v", retried, marked, tc.retried, tc.marked)
			}
			if n := b.count(t, `SELECT count(*) FROM outbox_messages WHERE attempts = 1 AND lock_id IS NULL
				AND published_at IS NULL AND next_attempt_at > $1 AND last_error LIKE '%broker is down%'`, b.clock.Now()); n != int64(len(bad)) {
				t.Errorf("%d rows with their retry scheduled and no lease, want %d", n, len(bad))
			}
			if n := b.count(t, "SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL AND lock_id IS NULL"); n != tc.wantPublished {
				t.Errorf("%d rows marked, want %d", n, tc.wantPublished)
			}
		})
	}
}

// Flush, as Run calls it when it stops, reads the marks in flight and hands
// back the batch claimed ahead: no lease is left to expire, and another
// relay claims those rows at once, without the clock moving.
func TestRelayFlushHandsBackTheClaimAhead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := b.seed(t, 25)
	r := NewRelay(RelayConfig{Name: "relay-1", Connect: b.connect, Publisher: b.broker, Clock: b.clock, BatchSize: 10, Pipeline: true})
	defer r.Close(ctx)
	if res := must[RelayStepResult](t)(r.Step(ctx)); res.Published != 10 || res.Marked != 0 {
		t.Fatalf("step: %+v, want 10 published and their marks still in flight", res)
	}
	res := must[RelayStepResult](t)(r.Flush(ctx))
	if res.Marked != 10 || res.Released != 10 || res.Published != 0 {
		t.Fatalf("flush: %+v, want 10 marked, the 10 claimed ahead released, nothing published", res)
	}
	if n := b.count(t, "SELECT count(*) FROM outbox_messages WHERE lock_id IS NOT NULL OR (published_at IS NULL AND attempts <> 0)"); n != 0 {
		t.Errorf("%d rows still leased or with a claim counted after the release", n)
	}
	b.drainPipelined(t, "relay-2")
	b.publishedOnce(t, ids)
}

// Run cancelled in the middle of a batch stops publishing, marks what went
// out and hands back the rest and the batch claimed ahead: every message is
// then published exactly once by whoever comes next, with no lease to wait for.
func TestRelayRunCancelledLeavesNoLease(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := b.seed(t, 100)
	ctx, cancel := context.WithCancel(context.Background())
	claims := 0
	hook := func(_ context.Context, ev Event) error {
		if ev.Checkpoint == RelayClaimed {
			claims++
		}
		if ev.Checkpoint == RelayPublished && claims == 3 {
			cancel() // batch 3's first message is out; batch 4 is claimed ahead
		}
		return nil
	}
	r := NewRelay(RelayConfig{Name: "relay-1", Connect: b.connect, Publisher: b.broker, Clock: b.clock, Hook: hook,
		BatchSize: 10, Pipeline: true, DisableListen: true})
	defer r.Close(context.Background())
	mustErrIs(t, r.Run(ctx), context.Canceled)
	if n := b.count(t, "SELECT count(*) FROM outbox_messages WHERE lock_id IS NOT NULL"); n != 0 {
		t.Errorf("%d rows left leased by a relay that stopped gracefully", n)
	}
	published := len(b.broker.Stats().PublishesByID)
	if n := b.count(t, "SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL"); n != int64(published) || published != 21 {
		t.Errorf("%d marked, %d published; want both 21 (batches 1, 2 and the first of 3)", n, published)
	}
	b.drainPipelined(t, "relay-2")
	b.publishedOnce(t, ids)
}

// A pipelined relay that dies inside Run stays dead: Run's way out does not
// publish, claim or reconnect, and the relay's connections are closed.
func TestRelayRunCrashStaysDead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seed(t, 100)
	claims, afterCrash := 0, 0
	crashed := false
	hook := func(_ context.Context, ev Event) error {
		if crashed {
			afterCrash++
		}
		if ev.Checkpoint == RelayClaimed {
			claims++
		}
		if ev.Checkpoint == RelayPublished && claims == 2 && !crashed {
			crashed = true
			return ErrCrash
		}
		return nil
	}
	connect, opened := b.trackConnect()
	r := NewRelay(RelayConfig{Name: "relay-1", Connect: connect, Publisher: b.broker, Clock: b.clock, Hook: hook,
		BatchSize: 10, Pipeline: true, DisableListen: true})
	defer r.Close(context.Background())
	mustErrIs(t, r.Run(context.Background()), ErrCrash)
	if afterCrash != 0 {
		t.Errorf("%d checkpoints reached after the crash", afterCrash)
	}
	if n := len(b.broker.Stats().PublishesByID); n != 11 {
		t.Errorf("%d messages published, want 11 (batch 1 and the first of batch 2)", n)
	}
	for i, c := range opened() {
		if !c.IsClosed() {
			t.Errorf("connection %d of %d still open after the crash", i+1, len(opened()))
		}
	}
}

// A caller may end each Step's context when the step returns (a per-step
// timeout): what a pipelined relay sent ahead must survive it.
func TestRelayPipelineOutlivesAStepContext(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := b.seed(t, 30)
	r := NewRelay(RelayConfig{Name: "relay-1", Connect: b.connect, Publisher: b.broker, Clock: b.clock, BatchSize: 10, Pipeline: true})
	defer r.Close(context.Background())
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := r.Step(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if res.Idle {
			break
		}
	}
	if n := b.count(t, "SELECT count(*) FROM outbox_messages WHERE published_at IS NULL OR lock_id IS NOT NULL"); n != 0 {
		t.Errorf("%d rows unmarked or leased", n)
	}
	b.publishedOnce(t, ids)
}

// Run wakes on the writer's NOTIFY well before its poll interval.
func TestRelayRunWakesOnNotify(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := NewRelay(RelayConfig{Name: "relay-1", Connect: b.connect, Publisher: b.broker, PollInterval: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	}()
	w := NewWriter(WriterConfig{Connect: b.connect})
	defer w.Close(context.Background())
	// Let Run reach its wait: a NOTIFY sent before LISTEN is not received,
	// which is what the first Step (claiming everything ready) covers.
	testrun.Eventually(t, 5*time.Second, "the relay listening", func() bool {
		return b.count(t, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query = $1`, stmtListenOutbox.SQL) > 0
	})
	resp := must[PaymentResponse](t)(w.CreatePayment(context.Background(), payment("c1")))
	testrun.Eventually(t, 10*time.Second, "published although the poll interval is a minute (NOTIFY woke the relay)", func() bool {
		return b.broker.Stats().PublishesByID[resp.EventID] > 0
	})
}

func TestRetryDelay(t *testing.T) {
	for _, tc := range []struct {
		attempts int
		want     time.Duration
	}{{0, time.Second}, {1, 2 * time.Second}, {2, 4 * time.Second}, {8, 256 * time.Second}, {9, 300 * time.Second}, {12, 300 * time.Second}} {
		if got := RetryDelay(tc.attempts); got != tc.want {
			t.Errorf("RetryDelay(%d) = %s, want %s", tc.attempts, got, tc.want)
		}
	}
}

// untilUnlocked waits until the outbox row id can be locked: no
// transaction, a dead actor's still being rolled back, holds it.
func (b *bundle) untilUnlocked(t *testing.T, id uuid.UUID) {
	t.Helper()
	testrun.Eventually(t, 10*time.Second, fmt.Sprintf("row %s unlocked after its holder died", id), func() bool {
		return b.count(t, `SELECT count(*) FROM (SELECT 1 FROM outbox_messages WHERE id = $1 FOR UPDATE SKIP LOCKED) free`, id) > 0
	})
}

// S8, the wrong way kept to be shown: a relay that holds its claim's
// transaction open while publishing still republishes after a crash (the
// broker is outside the transaction), and the crash rolls its claim back, so
// the attempt is not counted: a message that kills its relay every time
// would never reach the dead letter.
func TestHoldTransactionStillDuplicatesAndLosesTheAttempt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.seed(t, 1)[0]
	wrong := b.relay(t, "relay-1", faultAt(RelayPublished, ErrCrash))
	wrong.cfg.HoldTransaction = true
	_, err := wrong.Step(ctx)
	mustErrIs(t, err, ErrCrash)
	row := b.row(t, id)
	if row.attempts != 0 || row.lockID != nil || row.publishedAt != nil {
		t.Fatalf("after the crash: %+v, want the claim rolled back (attempts 0, no lease)", row)
	}
	if got := b.broker.Stats().PublishesByID[id]; got != 1 {
		t.Fatalf("published %d times before the crash, want 1", got)
	}
	// No lease to wait for: the next relay takes the row once the server
	// has seen the death. Until its backend reads the closed socket and
	// rolls back, the dead claim's row lock stands and a claim (SKIP
	// LOCKED) passes the row by.
	b.untilUnlocked(t, id)
	again := b.relay(t, "relay-2", nil)
	again.cfg.HoldTransaction = true
	res := must[RelayStepResult](t)(again.Step(ctx))
	if res.Published != 1 || res.Marked != 1 {
		t.Fatalf("relay-2: %+v", res)
	}
	if got := b.broker.Stats().PublishesByID[id]; got != 2 {
		t.Errorf("id published %d times, want 2: holding the transaction did not prevent the duplicate", got)
	}
	if row := b.row(t, id); row.attempts != 1 || row.publishedAt == nil {
		t.Errorf("row %+v, want published with attempts 1 (the crashed attempt was never counted)", row)
	}
}

// The zombie's other side: a lease with no end. A relay
// that claims and dies holds its row for ever — no other relay, nor its own
// restart (a new worker id), may claim it, however long the clock runs —
// while a relay that only stalled wakes and marks what it still holds.
func TestLeaseForeverHoldsTheRow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		dies bool
	}{{"the owner dies", true}, {"the owner stalls", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			id := b.seed(t, 1)[0]
			forever := func(name string, hook Hook) *Relay {
				r := NewRelay(RelayConfig{Name: name, Connect: b.connect, Publisher: b.broker, Clock: b.clock, Hook: hook,
					Counters: b.counters, LeaseForever: true})
				t.Cleanup(func() { _ = r.Close(context.Background()) })
				return r
			}
			hook, reached, release := pauseAt(RelayClaimed)
			owner := forever("relay-1", hook)
			var ownerRes RelayStepResult
			var ownerErr error
			done := make(chan struct{})
			stepCtx, kill := context.WithCancel(ctx)
			defer kill()
			go func() { ownerRes, ownerErr = owner.Step(stepCtx); close(done) }()
			<-reached
			if row := b.row(t, id); row.lockID == nil || row.lockedUntil != nil || row.attempts != 1 {
				t.Fatalf("claimed with no end: %+v", row)
			}
			if tc.dies {
				kill()
				<-done
				_ = owner.Close(ctx)
			}
			b.clock.Advance(24 * time.Hour)
			for _, r := range []*Relay{forever("relay-1 restarted", nil), b.relay(t, "relay-2", nil)} {
				if res := must[RelayStepResult](t)(r.Step(ctx)); !res.Idle {
					t.Fatalf("%s claimed a row leased for ever: %+v", r.cfg.Name, res)
				}
			}
			if tc.dies {
				if row := b.row(t, id); row.publishedAt != nil || row.lockID == nil {
					t.Errorf("a dead owner's row: %+v, want leased and unpublished", row)
				}
				return
			}
			close(release)
			<-done
			if ownerErr != nil || ownerRes.Published != 1 || ownerRes.Marked != 1 || ownerRes.LostLeases != 0 {
				t.Fatalf("the stalled owner: %+v %v", ownerRes, ownerErr)
			}
			if b.counters.LeasesRecovered.Load() != 0 {
				t.Errorf("recovered %d leases, want 0", b.counters.LeasesRecovered.Load())
			}
		})
	}
}
