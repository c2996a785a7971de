package deployui

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/internal/testrun"
)

func TestMain(m *testing.M) {
	// The screens compared are drawn in colour, as a terminal draws them.
	os.Unsetenv("NO_COLOR")
	testrun.Exit(m.Run())
}

// fakeActors are the actors the fake runs, in the screen's order.
var fakeActors = []string{"relay-1", "accounting", "notifications"}

// fakeDeployment is a deployment in memory, for the screen's tests: no
// PostgreSQL, no NATS. A payment is published and applied by both
// consumers at once while the broker runs, and waits in the outbox while
// it is stopped, until it starts again; a fault is armed and stays armed
// (the real deployment's faults are the root package's test's,
// TestLiveScreenByKeys).
type fakeDeployment struct {
	mu       sync.Mutex
	payments int64
	pending  int64
	since    time.Time // when the oldest pending payment was posted
	stopped  bool
	away     bool // the stream not opened yet: a broker away at the start
	armed    map[string]fault.Fault
}

func newFakeDeployment() *fakeDeployment { return &fakeDeployment{armed: map[string]fault.Fault{}} }

// errFakeStopped is BrokerErr while the fake's broker is stopped.
var errFakeStopped = errors.New("the embedded JetStream server is stopped")

func (f *fakeDeployment) Snapshot(context.Context) (deploy.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	published := f.payments - f.pending
	s := deploy.Snapshot{At: now, Payments: f.payments, Pending: f.pending, Published: published, BrokerRunning: !f.stopped}
	if published > 0 {
		s.AttemptsPerMessage = 1
	}
	if f.pending > 0 {
		s.OldestPendingAge = now.Sub(f.since)
	}
	for _, name := range deploy.Consumers {
		s.Consumers = append(s.Consumers, deploy.ConsumerFigures{Name: name, Inbox: published, Effects: published})
	}
	if f.stopped {
		s.BrokerErr = errFakeStopped
	} else {
		s.Broker = &jetstream.Info{Stream: "OUTBOXLAB_OUTBOX", Consumers: map[string]jetstream.ConsumerInfo{"accounting": {}, "notifications": {}}}
	}
	for _, name := range fakeActors {
		a := deploy.Actor{Name: name, State: deploy.ActorRunning, Armed: f.armed[name]}
		if f.stopped {
			a.State = deploy.ActorWaiting
		}
		s.Actors = append(s.Actors, a)
	}
	return s, nil
}

func (f *fakeDeployment) PostPayment(_ context.Context, amount int64) (engine.PaymentResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.payments++
	if f.stopped {
		if f.pending == 0 {
			f.since = time.Now()
		}
		f.pending++
	}
	return engine.PaymentResponse{StatusCode: engine.StatusCreated, PaymentID: uuid.New(), EventID: uuid.New(),
		ClientID: "live", AmountCents: amount, Currency: "EUR", CreatedAt: time.Now().UTC()}, nil
}

func (f *fakeDeployment) arm(actor string, armed fault.Fault) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range fakeActors {
		if a == actor {
			f.armed[actor] = armed
			return nil
		}
	}
	return deploy.ErrUnknownActor
}

func (f *fakeDeployment) Crash(actor string) error { return f.arm(actor, fault.Crash) }

func (f *fakeDeployment) Stall(actor string, _ time.Duration) error {
	return f.arm(actor, fault.Stall)
}

func (f *fakeDeployment) StopBroker() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	return nil
}

func (f *fakeDeployment) StartBroker() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped, f.pending = false, 0 // what waited is published and applied
	return nil
}

func (f *fakeDeployment) Embedded() bool { return true }

func (f *fakeDeployment) AckWait() time.Duration { return 2 * time.Second }

func (f *fakeDeployment) Stream() (deploy.StreamSettings, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.away {
		return deploy.StreamSettings{}, false
	}
	return deploy.StreamSettings{Name: "OUTBOXLAB_OUTBOX", Dedup: 2 * time.Minute, Retention: deploy.RetentionPurged, AckWait: 2 * time.Second, Replicas: 1}, true
}
