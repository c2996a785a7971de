package jetstream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream/jstest"
)

// publishN publishes n payments' events on b and returns their ids.
func publishN(t *testing.T, b *Broker, n int) []uuid.UUID {
	t.Helper()
	ids := make([]uuid.UUID, n)
	for i := range ids {
		ids[i] = uuid.New()
		msg := engine.Message{Envelope: engine.Envelope{ID: ids[i], Type: "payment.created", SchemaVersion: 1, AggregateType: "payment",
			AggregateID: ids[i].String(), Payload: []byte(fmt.Sprintf(`{"n":%d}`, i))}, Topic: engine.TopicPayments}
		if _, err := b.PublishAck(context.Background(), msg); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	return ids
}

func streamInfo(t *testing.T, nc *nats.Conn, name string) *jetstream.StreamInfo {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	si, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return si
}

// On a real 3-node cluster: a stream opened with no replica count asked
// for gets 3 (the cluster's size says so); opened again with Replicas 1 it
// is scaled down in place and with 3 up again, never deleted: the messages
// published before (and not consumed) are all still there, the durable
// consumers too, and a setting made by hand that Open does not manage
// (MaxAge) is kept. More replicas than servers is an error that says so.
func TestOpenUpdatesReplicasInPlaceOnACluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-node NATS cluster")
	}
	c := jstest.StartCluster(t, 3)
	nc, err := Dial(c.URL(), "test", 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx := context.Background()
	if n := ClusterSize(nc); n != 3 {
		t.Fatalf("ClusterSize %d, want 3 (servers known: %v)", n, nc.Servers())
	}
	b, err := Open(ctx, nc, Config{Pipeline: "replicas"})
	if err != nil {
		t.Fatal(err)
	}
	if s := b.Settings(); s.Replicas != 3 || s.Leader == "" || len(s.Peers) != 2 || s.Retention != "interest" || s.Duplicates != 2*time.Minute || s.AckWait != 30*time.Second {
		t.Fatalf("settings %+v, want 3 replicas (a leader and 2 peers), interest retention, the 2m window and 30s AckWait", s)
	}
	if err := b.Subscribe(ctx, engine.TopicPayments, "accounting"); err != nil {
		t.Fatal(err)
	}
	publishN(t, b, 20)

	// By hand, as an operator would with `nats stream edit`.
	js, _ := jetstream.New(nc)
	si := streamInfo(t, nc, b.Stream())
	cfg := si.Config
	cfg.MaxAge = time.Hour
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	created := si.Created

	for _, want := range []int{1, 3} {
		b2, err := Open(ctx, nc, Config{Pipeline: "replicas", Replicas: want})
		if err != nil {
			t.Fatalf("Open with Replicas %d: %v", want, err)
		}
		si := streamInfo(t, nc, b2.Stream())
		if si.Config.Replicas != want || b2.Settings().Replicas != want {
			t.Errorf("replicas %d (settings %d), want %d", si.Config.Replicas, b2.Settings().Replicas, want)
		}
		if si.State.Msgs != 20 || !si.Created.Equal(created) {
			t.Errorf("replicas %d: %d messages, created %v (first %v): want the 20 kept in the same stream", want, si.State.Msgs, si.Created, created)
		}
		if si.Config.MaxAge != time.Hour {
			t.Errorf("replicas %d: MaxAge %v, want the hour set by hand kept", want, si.Config.MaxAge)
		}
		if si.State.Consumers != 1 {
			t.Errorf("replicas %d: %d consumers, want accounting's kept", want, si.State.Consumers)
		}
	}
	// No count asked for: the 3 it has are kept.
	if b3, err := Open(ctx, nc, Config{Pipeline: "replicas"}); err != nil || b3.Settings().Replicas != 3 {
		t.Fatalf("Open with no count: %v, replicas %d, want 3 kept", err, b3.Settings().Replicas)
	}
	if _, err := Open(ctx, nc, Config{Pipeline: "replicas", Replicas: 5}); err == nil || !strings.Contains(err.Error(), "fewer JetStream servers") {
		t.Errorf("5 replicas on 3 servers: %v, want an error that says the cluster is too small", err)
	}
	if si := streamInfo(t, nc, b.Stream()); si.State.Msgs != 20 {
		t.Errorf("after the refused count: %d messages, want 20", si.State.Msgs)
	}
}

// Embedded (a server of one): the default is 1 replica; Open again on the
// same store after a restart of the server keeps the stream and its
// messages; only Fresh deletes them.
func TestOpenNeverDeletesOnlyFreshDoes(t *testing.T) {
	t.Parallel()
	srv, err := StartServer(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	nc, err := srv.Connect("test", 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx := context.Background()
	b, err := Open(ctx, nc, Config{Pipeline: "keep"})
	if err != nil {
		t.Fatal(err)
	}
	if s := b.Settings(); s.Replicas != 1 || s.Cluster != "" {
		t.Fatalf("embedded: %+v, want 1 replica and no cluster", s)
	}
	if err := b.Subscribe(ctx, engine.TopicPayments, "accounting"); err != nil {
		t.Fatal(err)
	}
	publishN(t, b, 7)
	srv.Stop()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	connected(t, nc)
	if _, err := Open(ctx, nc, Config{Pipeline: "keep"}); err != nil {
		t.Fatal(err)
	}
	if si := streamInfo(t, nc, b.Stream()); si.State.Msgs != 7 || si.State.Consumers != 1 {
		t.Fatalf("after a restart and Open: %d messages, %d consumers; want 7 and 1", si.State.Msgs, si.State.Consumers)
	}
	if _, err := Open(ctx, nc, Config{Pipeline: "keep", Fresh: true}); err != nil {
		t.Fatal(err)
	}
	if si := streamInfo(t, nc, b.Stream()); si.State.Msgs != 0 || si.State.Consumers != 0 {
		t.Fatalf("after Fresh: %d messages, %d consumers; want none", si.State.Msgs, si.State.Consumers)
	}
}

// A stream marked as one owner's is refused to another (a *NotOwnedError
// naming both), even with Fresh, which then deletes nothing; its owner
// opens it and keeps its messages. A stream no owner marked (an older
// build's) is refused too, unless Adopt, which marks it.
func TestOpenKeepsToItsOwnersStream(t *testing.T) {
	t.Parallel()
	srv, err := StartServer(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	nc, err := srv.Connect("test", 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx := context.Background()
	b, err := Open(ctx, nc, Config{Pipeline: "owned", Owner: "aaaa"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Subscribe(ctx, engine.TopicPayments, "accounting"); err != nil {
		t.Fatal(err)
	}
	publishN(t, b, 3)
	if d := streamInfo(t, nc, b.Stream()).Config.Description; d != "outboxlab deployment aaaa" {
		t.Errorf("description %q, want the owner's mark", d)
	}
	for _, cfg := range []Config{{Pipeline: "other", Stream: b.Stream(), Owner: "bbbb"}, {Pipeline: "other", Stream: b.Stream(), Owner: "bbbb", Fresh: true, Adopt: true}} {
		_, err := Open(ctx, nc, cfg)
		var no *NotOwnedError
		if !errors.As(err, &no) || no.Owner != "aaaa" || no.Want != "bbbb" || !strings.Contains(err.Error(), "aaaa") || !strings.Contains(err.Error(), "bbbb") {
			t.Errorf("%+v: %v, want a NotOwnedError naming aaaa and bbbb", cfg, err)
		}
	}
	if _, err := Open(ctx, nc, Config{Pipeline: "owned", Owner: "aaaa"}); err != nil {
		t.Fatal(err)
	}
	if si := streamInfo(t, nc, b.Stream()); si.State.Msgs != 3 || si.State.Consumers != 1 {
		t.Fatalf("after the refusals: %d messages, %d consumers; want 3 and 1", si.State.Msgs, si.State.Consumers)
	}

	if _, err := Open(ctx, nc, Config{Pipeline: "legacy"}); err != nil {
		t.Fatal(err)
	}
	var no *NotOwnedError
	if _, err := Open(ctx, nc, Config{Pipeline: "legacy", Owner: "cccc"}); !errors.As(err, &no) || no.Owner != "" {
		t.Errorf("an unmarked stream without Adopt: %v, want a NotOwnedError with no owner", err)
	}
	l, err := Open(ctx, nc, Config{Pipeline: "legacy", Owner: "cccc", Adopt: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := streamInfo(t, nc, l.Stream()).Config.Description; d != "outboxlab deployment cccc" {
		t.Errorf("adopted: description %q, want cccc's mark", d)
	}
}

// On Debian's nats-server (2.9.10, before atomic batches), a stream opened
// again with the same settings is kept as it was: not updated in place at
// every Open for a setting that server does not keep, a write the cluster's
// meta leader must accept (which a cluster without its quorum refuses).
func TestOpenAgainKeepsTheStreamOnAServerWithoutAtomicBatches(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a 3-node nats-server cluster")
	}
	c := jstest.StartExternalCluster(t, 3)
	nc, err := nats.Connect(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if knowsAtomicBatches(nc.ConnectedServerVersion()) {
		t.Skipf("nats-server %s keeps AllowAtomicPublish: nothing to leave out", nc.ConnectedServerVersion())
	}
	cfg := Config{Pipeline: "again", PurgeAcked: true}
	for i, want := range []string{OpenedCreated, OpenedKept} {
		b, err := Open(context.Background(), nc, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Opened(); got != want {
			t.Errorf("open %d on nats-server %s: %q, want %q", i+1, nc.ConnectedServerVersion(), got, want)
		}
		b.Close()
	}
}

func TestKnowsAtomicBatches(t *testing.T) {
	for v, want := range map[string]bool{"2.9.10": false, "2.11.4": false, "2.12.0": true, "2.15.3": true, "3.0.0": true, "": true} {
		if got := knowsAtomicBatches(v); got != want {
			t.Errorf("knowsAtomicBatches(%q) = %v, want %v", v, got, want)
		}
	}
}
