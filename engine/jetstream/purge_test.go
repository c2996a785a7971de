package jetstream

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/internal/testrun"
)

// With PurgeAcked the stream has limits retention, and the broker removes
// what every consumer has acked in bulk after their acks: what one consumer
// acked and the other not yet stays; once both have, it goes; and the dedup
// window still drops a republish of an id that left.
func TestPurgeAckedKeepsWhatSomeConsumerOwesAndDropsTheRest(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{PurgeAcked: true})
	ctx := context.Background()
	if r := b.broker.Settings().Retention; r != "limits" {
		t.Fatalf("retention %q, want limits (the broker purges)", r)
	}
	ids := publishN(t, b.broker, 6)
	ack := func(name string, n int) {
		t.Helper()
		ds, err := b.broker.ReceiveBatch(ctx, name, n)
		if err != nil || len(ds) != n {
			t.Fatalf("%s: %d deliveries, %v; want %d", name, len(ds), err, n)
		}
		for i, err := range b.broker.AckBatch(ctx, ds) {
			if err != nil {
				t.Fatalf("ack %d: %v", i, err)
			}
		}
		b.broker.purge.wait()
	}
	held := func() uint64 {
		return streamInfo(t, b.nc, b.broker.Stream()).State.Msgs
	}
	ack("accounting", 6)
	if n := held(); n != 6 {
		t.Fatalf("accounting acked all, notifications none: the stream holds %d, want 6", n)
	}
	ack("notifications", 4)
	if n := held(); n != 2 {
		t.Fatalf("notifications acked 4: the stream holds %d, want 2", n)
	}
	ack("notifications", 2)
	if n := held(); n != 0 {
		t.Fatalf("both acked all: the stream holds %d, want 0", n)
	}
	if st := b.broker.Stats(); st.Purges < 2 {
		t.Errorf("%d purges, want 2 at least", st.Purges)
	}
	msg := engine.Message{Envelope: engine.Envelope{ID: ids[0], Type: "payment.created", SchemaVersion: 1, AggregateType: "payment",
		AggregateID: ids[0].String(), Payload: []byte(`{"n":0}`)}, Topic: engine.TopicPayments}
	if ack := must[PubAck](t)(b.broker.PublishAck(ctx, msg)); !ack.Duplicate {
		t.Error("a republish inside the window, after the purge, was not acked as a duplicate")
	}
}

// A stream an earlier run made with interest retention, opened again by a
// broker that purges (serve --broker and live): changed to
// limits in place, every message it owes kept and delivered; what every
// consumer acked then leaves the stream, as the server tells.
func TestPurgeAckedTakesOverAnInterestStreamKeepingWhatIsOwed(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{})
	ctx := context.Background()
	if r := b.broker.Settings().Retention; r != "interest" {
		t.Fatalf("retention %q, want interest", r)
	}
	publishN(t, b.broker, 5)
	ds, err := b.broker.ReceiveBatch(ctx, "accounting", 5)
	if err != nil || len(ds) != 5 {
		t.Fatalf("accounting: %d deliveries, %v; want 5", len(ds), err)
	}
	for _, err := range b.broker.AckBatch(ctx, ds) {
		if err != nil {
			t.Fatal(err)
		}
	}
	b.broker.Close()

	br := b.open(t, Config{PurgeAcked: true}) // the restart
	br.purge.wait()
	si := streamInfo(t, b.nc, br.Stream())
	if si.Config.Retention != jetstream.LimitsPolicy || !br.Settings().PurgeAcked {
		t.Fatalf("reopened: retention %s, purge %v; want limits, purged by the broker", si.Config.Retention, br.Settings().PurgeAcked)
	}
	if si.State.Msgs != 5 {
		t.Fatalf("reopened: the stream holds %d messages, want the 5 notifications is owed", si.State.Msgs)
	}
	if ds, err := br.ReceiveBatch(ctx, "accounting", 5); err != nil || len(ds) != 0 {
		t.Errorf("accounting acked all before the restart, now gets %d, %v", len(ds), err)
	}
	ds, err = br.ReceiveBatch(ctx, "notifications", 10)
	if err != nil || len(ds) != 5 {
		t.Fatalf("notifications: %d deliveries, %v; want the 5 it is owed", len(ds), err)
	}
	for _, err := range br.AckBatch(ctx, ds) {
		if err != nil {
			t.Fatal(err)
		}
	}
	testrun.Awaited(t, 5*time.Second, "both acked all: the stream holds none (first 6)", func() string {
		st := streamInfo(t, b.nc, br.Stream()).State
		return fmt.Sprintf("%d messages, first %d", st.Msgs, st.FirstSeq)
	}, func(s string) bool { return s == "0 messages, first 6" })
}

// Acks that came before a crash and were not purged yet go at the next
// start, when the broker subscribes: not at the next ack, which may be
// long in coming.
func TestPurgeAckedPurgesAtStartWhatWasAcked(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{PurgeAcked: true})
	ctx := context.Background()
	// The purge its own start asked for must be over before the acks
	// below, or it would purge them and the start under test would find
	// nothing left to do.
	b.broker.purge.wait()
	publishN(t, b.broker, 3)
	// Acked by both consumers straight through JetStream, so that no purge
	// of this broker's follows: as if it had died between acks and purge.
	for _, name := range []string{"accounting", "notifications"} {
		c, err := b.broker.js.Consumer(ctx, b.broker.Stream(), name)
		if err != nil {
			t.Fatal(err)
		}
		batch, err := c.FetchNoWait(3)
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			if err := m.DoubleAck(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := streamInfo(t, b.nc, b.broker.Stream()).State.Msgs; n != 3 {
		t.Fatalf("acked outside the broker: the stream holds %d, want 3 (no purge yet)", n)
	}
	br := b.open(t, Config{PurgeAcked: true})
	br.purge.wait()
	if n := streamInfo(t, b.nc, br.Stream()).State.Msgs; n != 0 {
		t.Errorf("started again: the stream holds %d messages every consumer acked, want none", n)
	}
}

// Going back to interest retention on a stream that holds messages and no
// consumer would drop them all (the server does): Open refuses, and the
// messages stay.
func TestOpenRefusesInterestOnAStreamWithMessagesAndNoConsumer(t *testing.T) {
	t.Parallel()
	b := setup(t, Config{PurgeAcked: true})
	ctx := context.Background()
	publishN(t, b.broker, 3)
	for _, name := range []string{"accounting", "notifications"} {
		if err := b.broker.js.DeleteConsumer(ctx, b.broker.Stream(), name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Open(ctx, b.nc, Config{}); err == nil {
		t.Fatal("opened with interest retention, want a refusal")
	}
	if n := streamInfo(t, b.nc, b.broker.Stream()).State.Msgs; n != 3 {
		t.Errorf("the stream holds %d messages, want the 3 owed", n)
	}
}
