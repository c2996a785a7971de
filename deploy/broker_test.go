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
// the outbox rows are marked published); only Fresh empties the stream: a
// start that opened it fresh would lose what the consumers are owed.
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
	publishPayments(t, j, 5)
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

// A store an earlier outboxlab left with interest retention, opened by a
// deployment that purges (PurgeAcked, as deployed.Start opens it): the
// stream is changed in place and keeps every message it owes.
func TestOpenJetStreamTakesOverAnInterestStreamKeepingWhatItOwes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	j, err := OpenJetStream(ctx, BrokerChoice{Kind: BrokerNATS}, dir, jetstream.Config{Pipeline: "upgrade"})
	if err != nil {
		t.Fatal(err)
	}
	if r := j.Settings().Retention; r != "interest" {
		t.Fatalf("retention %q, want interest, as an earlier run made it", r)
	}
	publishPayments(t, j, 4)
	j.Close()
	j, err = OpenJetStream(ctx, BrokerChoice{Kind: BrokerNATS}, dir, jetstream.Config{Pipeline: "upgrade", PurgeAcked: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	in, err := j.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s := j.Settings(); s.Retention != "limits" || !s.PurgeAcked || in.Messages != 4 {
		t.Errorf("started again: retention %s, purged %v, %d messages; want limits, purged by the broker, the 4 owed", s.Retention, s.PurgeAcked, in.Messages)
	}
	for _, name := range Consumers {
		if c := in.Consumers[name]; c.Waiting != 4 {
			t.Errorf("%s: %d waiting, want the 4 it is owed", name, c.Waiting)
		}
	}
}

// publishPayments publishes n payment events, as a relay would, each its
// own id.
func publishPayments(t *testing.T, j *JetStream, n int) {
	t.Helper()
	for range n {
		id := uuid.New()
		msg := engine.Message{Envelope: engine.Envelope{ID: id, AggregateType: "payment", AggregateID: id.String(), Type: "payment.created",
			SchemaVersion: 1, Payload: []byte(`{}`)}, Topic: engine.TopicPayments}
		if err := j.Publish(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
	}
}
