package jetstream

import (
	"context"
	"testing"

	"github.com/outboxlab/outboxlab/engine"
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
