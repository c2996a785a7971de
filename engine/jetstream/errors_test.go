package jetstream

import (
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/outboxlab/outboxlab/engine"
)

// What a broker that cannot store says is an outage (engine.ErrBrokerDown:
// the relay hands its rows back and waits), not a message's failure (a
// retry after a backoff). An asynchronous publish whose ack does not come,
// as on a cluster whose stream has no leader, says 'timeout waiting for
// ack'; taken as the message's failure it scheduled retries through a
// majority's loss and return.
func TestBrokerErrSaysAnOutage(t *testing.T) {
	for _, err := range []error{jetstream.ErrAsyncPublishTimeout, fmt.Errorf("wrapped: %w", jetstream.ErrAsyncPublishTimeout), errAnswerTimeout} {
		if got := brokerErr("publish x", err); !errors.Is(got, engine.ErrBrokerDown) {
			t.Errorf("%v: %v, not engine.ErrBrokerDown", err, got)
		}
	}
	if got := brokerErr("publish x", errors.New("maximum payload exceeded")); errors.Is(got, engine.ErrBrokerDown) {
		t.Errorf("a message's own failure taken as an outage: %v", got)
	}
}
