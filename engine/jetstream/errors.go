package jetstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/outboxlab/outboxlab/engine"
)

// errAnswerTimeout is a request the server did not answer in time.
var errAnswerTimeout = errors.New("no answer from JetStream in time")

// brokerErr wraps a failure to reach JetStream as engine.ErrBrokerDown, so
// the relay schedules a retry and a consumer's Run waits instead of ending;
// other errors (a bad stream config, cancellation) keep their own meaning.
func brokerErr(what string, err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%s: %w", what, err)
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, nats.ErrTimeout), errors.Is(err, nats.ErrNoServers), errors.Is(err, nats.ErrReconnectBufExceeded),
		errors.Is(err, nats.ErrDisconnected), errors.Is(err, nats.ErrNoResponders), errors.Is(err, jetstream.ErrNoStreamResponse),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, errAnswerTimeout), errors.Is(err, ErrServerStopped),
		// An asynchronous publish's ack that did not come within Timeout
		// (WithPublishAsyncTimeout): a stream with no leader to store it.
		errors.Is(err, jetstream.ErrAsyncPublishTimeout):
		return fmt.Errorf("%s: %w (%v)", what, engine.ErrBrokerDown, err)
	}
	var api *jetstream.APIError
	if errors.As(err, &api) && api.Code == 503 {
		// "JetStream system temporarily unavailable": a cluster without
		// its quorum (a majority of its servers down) answers so.
		return fmt.Errorf("%s: %w (%v)", what, engine.ErrBrokerDown, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
