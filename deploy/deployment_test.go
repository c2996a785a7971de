package deploy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/engine/vclock"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/telemetry/telemetrytest"
)

// launched is a deployment on embedded JetStream and its own database,
// ended with the test.
type launched struct {
	*Deployment
	base  string        // its HTTP API, when served
	clock *vclock.Clock // every actor's: the wall plus a skew the test moves
}

// relayCrashed is what relay-1's supervisor says when a test crashes it
// on purpose at its claim (its OnError: the actor is started again).
const relayCrashed = `^relay-1: relay-1 died at relay\.claimed: .*actor crashed; starting it again in 1s$`

// launch launches a deployment for the test: an actor's unexpected end or
// a failed read fails the test, but for the errors allow matches, those
// the test causes on purpose (testrun.BackgroundErrors).
func launch(t *testing.T, js jetstream.Config, withHTTP bool, workers int, allow ...string) launched {
	t.Helper()
	return launchWith(t, js, withHTTP, workers, func(*Options) {}, allow...)
}

// launchWith is launch with the options changed by edit before Launch.
func launchWith(t *testing.T, js jetstream.Config, withHTTP bool, workers int, edit func(*Options), allow ...string) launched {
	t.Helper()
	_, db := pgtest.DB(t)
	url := pgtest.Server(t).DatabaseURL(db)
	if js.Timeout == 0 {
		js.Timeout = 500 * time.Millisecond
	}
	j, err := OpenJetStream(context.Background(), BrokerChoice{Kind: BrokerNATS}, t.TempDir(), js)
	if err != nil {
		t.Fatal(err)
	}
	l := launched{clock: vclock.OnWall()}
	o := Options{DatabaseURL: url, Broker: j.Broker, Server: j.Server, Clock: l.clock,
		Relay:   engine.RelayConfig{PollInterval: 100 * time.Millisecond, Lease: time.Second},
		OnError: testrun.BackgroundErrors(t, allow...), Workers: workers}
	if withHTTP {
		if o.HTTP, err = httpapi.Listen("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		l.base = "http://" + o.HTTP.Addr
	}
	edit(&o)
	ctx, cancel := context.WithCancel(context.Background())
	d, err := Launch(ctx, o)
	if err != nil {
		cancel()
		j.Close()
		t.Fatal(err)
	}
	l.Deployment = d
	t.Cleanup(func() {
		cancel()
		d.Wait()
		j.Close()
	})
	return l
}

// until reads Snapshot until cond holds, or fails after 20 s.
func (l launched) until(t *testing.T, what string, cond func(Snapshot) bool) Snapshot {
	t.Helper()
	return testrun.Awaited(t, 20*time.Second, what, func() Snapshot {
		s, err := l.Snapshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, cond)
}

// allCarried: every payment published and applied once by both consumers.
func allCarried(n int64) func(Snapshot) bool {
	return func(s Snapshot) bool {
		return s.Payments == n && s.Published == n && s.Pending == 0 &&
			s.Consumer("accounting").Inbox == n && s.Consumer("accounting").Effects == n &&
			s.Consumer("notifications").Inbox == n && s.Consumer("notifications").Effects == n
	}
}

func (l launched) pay(t *testing.T, n int) {
	t.Helper()
	for range n {
		if _, err := l.PostPayment(context.Background(), 1250); err != nil {
			t.Fatal(err)
		}
	}
}

// The handle, without HTTP: payments posted through it are published and
// applied once by both consumers, as the database counts them; relay-1
// crashed at its next checkpoint is started again by its supervisor and
// nothing is lost; the embedded broker stopped, payments wait in the outbox
// (pending grows, the snapshot says the broker is down) and are carried once
// it is started again.
func TestLaunchCarriesEveryPaymentThroughFaults(t *testing.T) {
	t.Parallel()
	l := launch(t, jetstream.Config{}, false, 1, relayCrashed)
	if got := l.Actors(); len(got) != 3 || got[0].Name != "relay-1" || got[0].State != ActorRunning {
		t.Fatalf("actors: %+v", got)
	}
	l.pay(t, 5)
	s := l.until(t, "5 carried", allCarried(5))
	if s.Broker == nil || s.BrokerErr != nil {
		t.Errorf("broker info: %v", s.BrokerErr)
	}

	// relay-1 crashes at its next checkpoint, the claim of the next payment.
	if err := l.Crash("relay-1"); err != nil {
		t.Fatal(err)
	}
	if a := l.Actors()[0]; a.Armed != fault.Crash {
		t.Errorf("relay-1 after Crash: %+v", a)
	}
	l.pay(t, 1)
	// Its supervisor waits a second on the clock, which the test moves.
	advanceWaited(t, l.clock, restartAfter)
	if a := l.Actors()[0]; a.Restarts == 0 {
		t.Fatalf("relay-1 was not restarted: %+v", a)
	}
	l.until(t, "6 carried after relay-1's crash", allCarried(6))
	if a := l.Actors()[0]; a.State != ActorRunning || a.Armed != "" {
		t.Errorf("relay-1 after its restart: %+v", a)
	}

	// The broker down: payments wait in the outbox, then go.
	if err := l.StopBroker(); err != nil {
		t.Fatal(err)
	}
	l.pay(t, 3)
	s = l.until(t, "3 pending with the broker down", func(s Snapshot) bool { return s.Pending == 3 })
	if s.BrokerRunning || s.Broker != nil || s.BrokerErr == nil {
		t.Errorf("broker stopped, snapshot says running %v, info %v, err %v", s.BrokerRunning, s.Broker, s.BrokerErr)
	}
	// No actor can publish or receive: each says so, none "running".
	for _, a := range s.Actors {
		if a.State != ActorWaiting {
			t.Errorf("broker stopped: %s is %q, want %q", a.Name, a.State, ActorWaiting)
		}
	}
	l.clock.Advance(300 * time.Millisecond) // the payments wait
	if s := l.until(t, "read", func(Snapshot) bool { return true }); s.Pending != 3 || s.OldestPendingAge < 300*time.Millisecond {
		t.Errorf("with the broker down: pending %d, oldest %s", s.Pending, s.OldestPendingAge)
	}
	if err := l.StartBroker(); err != nil {
		t.Fatal(err)
	}
	s = l.until(t, "9 carried after the broker came back", allCarried(9))
	for _, a := range s.Actors {
		if a.State != ActorRunning {
			t.Errorf("the broker back: %s is %q", a.Name, a.State)
		}
	}
	if s.OldestPendingAge != 0 || s.Dead != 0 {
		t.Errorf("after: %+v", s)
	}
	l.until(t, "the stream emptied (interest retention)", func(s Snapshot) bool { return s.Broker != nil && s.Broker.Messages == 0 })

	for _, err := range []error{l.Crash("relay-9"), l.Stall("accounting", 2*time.Hour)} {
		if !errors.Is(err, ErrUnknownActor) && !errors.Is(err, ErrBadDuration) {
			t.Errorf("bad fault: %v", err)
		}
	}
}

// A consumer stalled past AckWait: JetStream delivers its message again
// to another worker, the inbox recognises it, and the snapshot counts the
// duplicate absorbed and one effect. Both accounting workers are armed
// (whichever pulls the message first freezes with it; the redelivery then
// freezes the other a little longer): a single worker would pull nothing
// while frozen, and its late ACK would still settle the message.
func TestStallPastAckWaitIsAbsorbedByTheInbox(t *testing.T) {
	t.Parallel()
	l := launch(t, jetstream.Config{AckWait: 500 * time.Millisecond}, false, 2)
	if err := l.Stall("accounting", 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := l.Stall("accounting-2", 2500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	l.pay(t, 1)
	testrun.Awaited(t, 10*time.Second, "accounting stalled", l.Actors, func(a []Actor) bool {
		return a[1].State == ActorStalled || a[2].State == ActorStalled
	})
	s := l.until(t, "the redelivery absorbed", func(s Snapshot) bool {
		return allCarried(1)(s) && s.Consumer("accounting").DuplicatesIgnored == 1
	})
	if s.Consumer("accounting").Effects != 1 {
		t.Errorf("accounting: %+v", s.Consumer("accounting"))
	}
	for _, a := range l.Actors()[1:3] {
		if a.State != ActorRunning || a.Armed != "" {
			t.Errorf("after the stalls: %+v", a)
		}
	}
}

// GET /metrics on a deployment: the database's figures as Prometheus
// text, read from the database (a scrape or two after they change: a
// scrape serves the last read, ScrapeWait at most after it began).
func TestMetricsOfADeployment(t *testing.T) {
	t.Parallel()
	l := launch(t, jetstream.Config{}, true, 1)
	l.pay(t, 4)
	l.until(t, "4 carried", allCarried(4))
	telemetrytest.ScrapeUntil(t, l.base+"/metrics", "4 carried",
		"outboxlab_up 1",
		`outboxlab_outbox_pending_messages{pipeline="outbox"} 0`,
		`outboxlab_outbox_oldest_pending_age_seconds{pipeline="outbox"} 0`,
		`outboxlab_outbox_published_messages_total{pipeline="outbox"} 4`,
		`outboxlab_outbox_dead_lettered_messages{pipeline="outbox"} 0`,
		`outboxlab_inbox_messages{consumer="accounting",pipeline="outbox"} 4`,
		`outboxlab_inbox_messages{consumer="notifications",pipeline="outbox"} 4`,
		`outboxlab_consumer_effects{consumer="accounting",pipeline="outbox"} 4`,
		"outboxlab_broker_up 1",
	)
	// The broker down: pending and its age grow in the scrape.
	if err := l.StopBroker(); err != nil {
		t.Fatal(err)
	}
	l.pay(t, 2)
	l.clock.Advance(200 * time.Millisecond) // the payments wait
	body := telemetrytest.ScrapeUntil(t, l.base+"/metrics", "the broker down", `outboxlab_outbox_pending_messages{pipeline="outbox"} 2`, "outboxlab_broker_up 0")
	if strings.Contains(body, fmt.Sprintf("outboxlab_outbox_oldest_pending_age_seconds{pipeline=%q} 0\n", "outbox")) {
		t.Errorf("broker down: oldest pending age 0:\n%s", body)
	}
}
