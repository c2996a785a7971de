package deploy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/vclock"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// A dead letter is a line of its own, at warn, naming the message; a
// retry scheduled is no line, only counted for the summary; the actor's
// own hook (its faults) still runs for every event.
func TestTheLogSaysEachDeadLetterAndCountsRetries(t *testing.T) {
	t.Parallel()
	var log logBuffer
	d := &Deployment{o: Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}}
	var seen int
	h := d.watch("relay-1", func(context.Context, engine.Event) error { seen++; return nil })
	dead, retried := uuid.New(), uuid.New()
	for _, ev := range []engine.Event{
		{Checkpoint: engine.RelayRetryScheduled, MessageIDs: []uuid.UUID{retried}},
		{Checkpoint: engine.RelayRetryScheduled, MessageIDs: []uuid.UUID{retried}},
		{Checkpoint: engine.RelayDeadLettered, MessageIDs: []uuid.UUID{dead}, Detail: engine.Say("attempt 12 of 12 failed: dead-lettered")},
	} {
		if err := h(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	lines := log.lines("")
	if seen != 3 || len(lines) != 1 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[0], "dead letter") ||
		!strings.Contains(lines[0], dead.String()) || strings.Contains(log.String(), retried.String()) {
		t.Errorf("hook ran %d times; the log:\n%s\nwant one warn line naming %s, none naming the retried one", seen, log.String(), dead)
	}
	if n := d.retries.Load(); n != 2 {
		t.Errorf("%d retries counted, want 2", n)
	}
}

// A broker that cannot be opened for a while is one line, whatever words
// its failures take from one try to the next (a cluster without its quorum
// answers 503 one try and nothing the next): the outage said at the start
// is not said again for each try. A refusal (not an outage) is said, once,
// at error.
func TestTheLogSaysAnOutageOnceWhateverItsCausesSay(t *testing.T) {
	t.Parallel()
	_, db := pgtest.DB(t)
	var log logBuffer
	causes := []error{
		fmt.Errorf("update stream: %w (503 JetStream system temporarily unavailable)", engine.ErrBrokerDown),
		fmt.Errorf("update stream: %w (context deadline exceeded)", engine.ErrBrokerDown),
	}
	refused := errors.New("stream OUTBOXLAB_X belongs to another deployment")
	var tries atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	d, err := Launch(ctx, Options{DatabaseURL: pgtest.Server(t).DatabaseURL(db), Away: causes[0],
		Logger: slog.New(slog.NewTextHandler(&log, nil)),
		Open: func(context.Context) (Broker, error) {
			n := tries.Add(1)
			if n > 6 {
				return nil, refused
			}
			return nil, causes[n%2]
		}})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	testrun.Awaited(t, 20*time.Second, "8 tries to open", tries.Load, func(n int64) bool { return n >= 8 })
	cancel()
	d.Wait()
	lines := log.lines("broker not opened yet")
	if len(lines) != 1 || !strings.Contains(lines[0], "level=ERROR") || !strings.Contains(lines[0], refused.Error()) {
		t.Errorf("after %d tries the log says:\n%s\nwant one error line, the refusal", tries.Load(), log.String())
	}
}

// A publish that was in flight through an outage and fails after the
// broker came back says nothing: the log keeps its one 'broker lost' and
// one 'broker back'. A publish begun after the return that fails is a new
// outage: one 'broker lost'.
func TestAPublishInFlightThroughAnOutageSaysNothingNew(t *testing.T) {
	t.Parallel()
	var log logBuffer
	clock := vclock.OnWall()
	l := newLink(nil, nil, nil, slog.New(slog.NewTextHandler(&log, nil)), clock)
	down := fmt.Errorf("publish: %w (no answer from JetStream in time)", engine.ErrBrokerDown)
	began := clock.Now()
	clock.Advance(time.Second)
	l.set(true, nil) // back, a second after the publish began
	l.failed(down, began)
	if st := l.state(); !st.Up || len(log.lines("broker lost")) != 0 {
		t.Fatalf("a publish begun before the return failed: up %v, the log:\n%s", st.Up, log.String())
	}
	clock.Advance(time.Second)
	l.failed(down, clock.Now())
	if st := l.state(); st.Up || len(log.lines("broker lost")) != 1 {
		t.Errorf("a publish begun after the return failed: up %v, the log:\n%s", st.Up, log.String())
	}
}
