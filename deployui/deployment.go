package deployui

import (
	"context"
	"time"

	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/engine"
)

// Deployment is what the screen reads and drives of the outbox pipeline
// running for real: *deploy.Deployment (deploy.Launch) is the one
// `outboxlab live` shows; the screen's tests drive a fake, with no
// PostgreSQL and no NATS. Every method but Snapshot and PostPayment
// returns at once: they run on the screen's goroutine.
type Deployment interface {
	// Snapshot reads the actors, the database's figures and the broker's.
	Snapshot(ctx context.Context) (deploy.Snapshot, error)
	// PostPayment writes a payment of amount cents, as POST /payments does.
	PostPayment(ctx context.Context, amount int64) (engine.PaymentResponse, error)
	// Crash arms a crash of actor at its next checkpoint
	// (deploy.ErrUnknownActor for one that does not run).
	Crash(actor string) error
	// Stall arms a stall of actor for d at its next checkpoint.
	Stall(actor string, d time.Duration) error
	// StopBroker stops the broker embedded in this process; StartBroker
	// starts it again on its store.
	StopBroker() error
	StartBroker() error
	// Embedded says whether the broker runs in this process (b stops it)
	// or at a URL (b says where).
	Embedded() bool
	// AckWait is how long the broker waits for an ack before it delivers
	// again (0 unknown).
	AckWait() time.Duration
	// Stream is the stream's settings, ok false when there is none to say.
	Stream() (s deploy.StreamSettings, ok bool)
}

// The deployment outboxlab live shows is one.
var _ Deployment = (*deploy.Deployment)(nil)
