package launch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/engine/jetstream/jstest"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// startOn starts a deployment on database db of the shared test server,
// with the broker at url, 2 s AckWait and lease.
func startOn(t *testing.T, db, url, stream string) (*Deployed, error) {
	t.Helper()
	srv := pgtest.Server(t)
	broker, err := deploy.ParseBroker(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.DropDatabase(context.Background(), db) })
	return Start(context.Background(), srv, nil, Config{
		Choice: Choice{Broker: broker, Stream: stream},
		Relays: 1, Workers: 2, AckWait: 2 * time.Second,
		Relay: engine.RelayConfig{Lease: 2 * time.Second, PollInterval: 100 * time.Millisecond},
		Who:   "deployed test " + db, database: db,
		OnError: testrun.BackgroundErrors(t)})
}

// Two deployments at once on one NATS cluster, each on a database of its
// own (another data directory, another laptop): each names its stream
// after the identity its database keeps, and each consumer applies every
// one of its own deployment's payments once and none of the other's.
// Two deployments sharing one stream would delete each other's at start
// (--fresh) and take each other's payments. A third deployment pointed at the first's
// stream by name (--stream) is refused, naming both, as bad input.
//
// It runs on two clusters of three: nats-server as the library this module
// links, in this process, and Debian's nats-server binary (2.9.10), which
// keeps no stream metadata: the owner's mark is in the stream's
// Description, which both keep.
func TestTwoDeploymentsOnOneNATSKeepToTheirOwnStreams(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a 3-node NATS cluster and three deployments")
	}
	t.Run("library", func(t *testing.T) {
		t.Parallel()
		twoDeployments(t, "lib", jstest.StartCluster(t, 3).URL())
	})
	t.Run("nats-server binary", func(t *testing.T) {
		t.Parallel()
		c := jstest.StartExternalCluster(t, 3)
		t.Logf("%s", c.Version)
		twoDeployments(t, "ext", c.URL())
	})
}

// twoDeployments runs two deployments at once on the cluster at url (on
// databases named after prefix), then a third on the first's stream.
func twoDeployments(t *testing.T, prefix, url string) {
	a, err := startOn(t, prefix+"_streams_a", url, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Stop)
	const n = 40
	for i := range n / 2 {
		if _, err := a.PostPayment(context.Background(), int64(100+i)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := startOn(t, prefix+"_streams_b", url, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	if a.JS.Stream() == b.JS.Stream() {
		t.Fatalf("both deployments opened stream %s", a.JS.Stream())
	}
	for _, d := range []*Deployed{a, b} {
		if !strings.HasPrefix(d.JS.Stream(), "OUTBOXLAB_LIVE_") || !strings.Contains(d.JS.Stream(), strings.ToUpper(d.ID.ID)) {
			t.Errorf("stream %s is not named after identity %s", d.JS.Stream(), d.ID.ID)
		}
	}
	for i := range n { // both at once: a 40 in all, b 20
		d := a
		if i%2 == 0 {
			d = b
		}
		if _, err := d.PostPayment(context.Background(), int64(200+i)); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []*Deployed{a, b} {
		want := pgtest.Query[int64](t, d.DBURL, "SELECT count(*) FROM payments")
		testrun.Eventually(t, 30*time.Second, fmt.Sprintf("%s: %d payments applied by both consumers", d.JS.Stream(), want), func() bool {
			return pgtest.Query[int64](t, d.DBURL, "SELECT count(*) FROM inbox_messages WHERE consumer_name = 'accounting'") >= want &&
				pgtest.Query[int64](t, d.DBURL, "SELECT count(*) FROM inbox_messages WHERE consumer_name = 'notifications'") >= want
		})
	}
	// A window for a wrong effect: one of the other deployment's payments,
	// if either took it, would land now, and the counts below would see it.
	time.Sleep(500 * time.Millisecond)
	for _, d := range []*Deployed{a, b} {
		payments := pgtest.Query[int64](t, d.DBURL, "SELECT count(*) FROM payments")
		for what, sql := range map[string]string{
			"ledger entries":             "SELECT count(*) FROM ledger_entries",
			"distinct ledger payments":   "SELECT count(DISTINCT payment_id) FROM ledger_entries WHERE payment_id IN (SELECT id FROM payments)",
			"notifications":              "SELECT count(*) FROM notifications",
			"distinct notified payments": "SELECT count(DISTINCT payment_id) FROM notifications WHERE payment_id IN (SELECT id FROM payments)",
			"accounting inbox":           "SELECT count(*) FROM inbox_messages WHERE consumer_name = 'accounting' AND message_id IN (SELECT id FROM outbox_messages)",
			"notifications inbox":        "SELECT count(*) FROM inbox_messages WHERE consumer_name = 'notifications' AND message_id IN (SELECT id FROM outbox_messages)",
		} {
			if got := pgtest.Query[int64](t, d.DBURL, sql); got != payments {
				t.Errorf("%s: %s %d, want %d (its payments)", d.JS.Stream(), what, got, payments)
			}
		}
		t.Logf("%s: %d payments, each applied once by accounting and notifications, none of the other's", d.JS.Stream(), payments)
	}

	_, err = startOn(t, prefix+"_streams_c", url, a.JS.Stream())
	var bad *badinput.Error
	switch {
	case err == nil:
		t.Fatalf("a third deployment opened %s, the first's stream", a.JS.Stream())
	case !errors.As(err, &bad):
		t.Errorf("refused, but not as bad input (exit 2): %v", err)
	case !strings.Contains(err.Error(), a.ID.ID) || !strings.Contains(err.Error(), a.JS.Stream()):
		t.Errorf("the refusal does not name the stream and its owner %s: %v", a.ID.ID, err)
	}
	t.Logf("the third: %v", err)
}

// A database an older outboxlab ran on (it exists, with no identity yet) keeps
// the stream that build made, OUTBOXLAB_LIVE, with the messages it still
// owes, and marks it as its own; a new database beside it gets a stream
// of its own and leaves OUTBOXLAB_LIVE alone.
func TestADeploymentOfAnOlderBuildKeepsItsStream(t *testing.T) {
	t.Parallel()
	nats := jetstream.ServerOnPort(t.TempDir(), jstest.FreePort(t)) // a broker at a URL
	t.Cleanup(nats.Stop)
	if err := nats.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv := pgtest.Server(t)
	if _, err := srv.OpenDatabase(ctx, "older_build"); err != nil {
		t.Fatal(err)
	}
	// What the older build left: the stream with no owner's mark, holding
	// a message published and not consumed.
	nc, err := jetstream.Dial(nats.URL(), "older build", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	old, err := jetstream.Open(ctx, nc, jetstream.Config{Pipeline: Pipeline, PurgeAcked: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Publish(ctx, engine.Message{Envelope: engine.Envelope{ID: uuid.New(), Type: "payment.created", SchemaVersion: 1,
		AggregateType: "payment", AggregateID: uuid.NewString(), Payload: []byte(`{}`)}, Topic: engine.TopicPayments}); err != nil {
		t.Fatal(err)
	}
	old.Close()

	fresh, err := startOn(t, "older_build_beside", nats.URL(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Stop()
	if fresh.JS.Stream() == "OUTBOXLAB_LIVE" {
		t.Fatalf("a database made now opened the older build's stream")
	}
	d, err := startOn(t, "older_build", nats.URL(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop()
	if d.JS.Stream() != "OUTBOXLAB_LIVE" || !strings.Contains(d.State, "1 messages in stream OUTBOXLAB_LIVE") {
		t.Errorf("the older build's database opened %s: %s; want OUTBOXLAB_LIVE and its message", d.JS.Stream(), d.State)
	}
	if s, err := d.JS.StreamInfo(ctx); err != nil {
		t.Fatal(err)
	} else if s.Name != "OUTBOXLAB_LIVE" {
		t.Errorf("stream %s", s.Name)
	}
	js, _ := natsjs.New(nc)
	st, err := js.Stream(ctx, "OUTBOXLAB_LIVE")
	if err != nil {
		t.Fatal(err)
	}
	if got := st.CachedInfo().Config.Description; got != jetstream.OwnerMark(d.ID.ID) {
		t.Errorf("OUTBOXLAB_LIVE's description %q, want %q", got, jetstream.OwnerMark(d.ID.ID))
	}
}
