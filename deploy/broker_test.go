package deploy

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
)

// A deployment started again on the same store finds the messages its
// relays published and its consumers had not taken yet (they are owed:
// the outbox rows are marked published); only Fresh empties the stream.
// Before, OpenJetStream always opened it fresh and lost them.
func TestOpenJetStreamKeepsWhatTheStreamHolds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	open := func(fresh bool) *JetStream {
		t.Helper()
		j, err := OpenJetStream(ctx, BrokerChoice{Kind: BrokerNATS}, dir, jetstream.Config{Pipeline: "keep", Fresh: fresh})
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	messages := func(j *JetStream) uint64 {
		t.Helper()
		in, err := j.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return in.Messages
	}
	j := open(false)
	for range 5 {
		id := uuid.New()
		msg := engine.Message{Envelope: engine.Envelope{ID: id, AggregateType: "payment", AggregateID: id.String(), Type: "payment.created",
			SchemaVersion: 1, Payload: []byte(`{}`)}, Topic: engine.TopicPayments}
		if err := j.Publish(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	j = open(false)
	if n := messages(j); n != 5 {
		t.Errorf("started again: the stream holds %d messages, want the 5 owed", n)
	}
	j.Close()
	j = open(true)
	defer j.Close()
	if n := messages(j); n != 0 {
		t.Errorf("started fresh: the stream holds %d messages, want none", n)
	}
}
