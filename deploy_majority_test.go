package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/outboxlab/outboxlab/engine/jetstream/jstest"
	"github.com/outboxlab/outboxlab/internal/testrun"
)

// A 3-node cluster of Debian's nats-server (three processes) loses two of
// its servers, the stream's leader among them, while payments are posted
// over HTTP to serve --broker and while the stream holds messages a stalled
// consumer (notifications) has not applied. With the majority still down
// the deployment is stopped (SIGTERM), started again, killed -9 and
// started again. Every POST answers 201 throughout: the API stands on
// PostgreSQL alone, and a start waits a few seconds for the broker at most,
// not the whole deadline of a request the cluster without its quorum
// leaves unanswered. Once the two servers are back, psql's counts show
// every payment published once and applied once by each consumer (inbox
// rows, effects and distinct effects equal the payments), none left
// pending, and the stream stored each event once (its last sequence is the
// payments' count: a relay's publish after the kill -9 of a row already
// published is the dedup window's duplicate, not a second event).
func TestServeKeepsThePromiseThroughMajorityLossAndRestarts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a 3-node nats-server cluster, PostgreSQL booted three times")
	}
	c := jstest.StartExternalCluster(t, 3)
	dir := seededDataDir(t)
	// The default's actors (outbox mode, one relay, two consumers) with a
	// 2 s lease and AckWait: after the kill -9, the row the relay held and
	// a delivery left unacknowledged come again within seconds, not 30.
	scenesDir := t.TempDir()
	scene := "title: the default's actors, 2 s lease and AckWait\nteaches: t\nmode: outbox\nlease: 2s\nack-timeout: 2s\n\nrequest amount=1250 client=acme\ndrain\n\nexpect outbox ledger_entries == 1\n"
	if err := os.WriteFile(filepath.Join(scenesDir, "majority.scene"), []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--broker", c.URL(), "--data-dir", dir, "--scenes", scenesDir, "--scene", "majority"}
	starting := time.Now()
	s := startServe(t, args...)
	firstStart := time.Since(starting)
	m := regexp.MustCompile(`stream: +(OUTBOXLAB_LIVE_[0-9A-F]{12}): 3 replicas on cluster `).FindStringSubmatch(s.out)
	if m == nil {
		t.Fatalf("no stream of 3 replicas on the stream line:\n%s", s.out)
	}
	stream := m[1]
	paid := 0
	var slowest time.Duration
	pay := func(n int) {
		t.Helper()
		for range n {
			start := time.Now()
			s.pay(t, paid) // fails the test unless 201
			slowest = max(slowest, time.Since(start))
			paid++
		}
	}
	carried := func(within time.Duration) map[string]int64 {
		t.Helper()
		return testrun.Awaited(t, within, fmt.Sprintf("%d payments carried", paid), func() map[string]int64 { return s.counts(t) }, func(c map[string]int64) bool {
			return c["published"] == int64(paid) && c["accounting"] == int64(paid) && c["notifications inbox"] == int64(paid)
		})
	}
	pay(10)
	carried(30 * time.Second)
	// notifications stalls at its next message: what it is owed stays in
	// the stream, unapplied, through the outage and both restarts.
	s.fault(t, "/faults/stall/notifications?for=10m")
	pay(10)
	if c := testrun.Awaited(t, 30*time.Second, fmt.Sprintf("%d payments published and applied by accounting", paid), func() map[string]int64 { return s.counts(t) },
		func(c map[string]int64) bool { return c["published"] == int64(paid) && c["accounting"] == int64(paid) }); c["notifications inbox"] >= int64(paid) {
		t.Fatalf("notifications applied all %d with a stall armed: %v", paid, c)
	}

	// The majority goes: the stream's leader and one other.
	leader := streamLeader(t, c.URL(), stream)
	down := []string{leader, "x1"}
	if leader == "x1" {
		down[1] = "x2"
	}
	for _, name := range down {
		if err := c.Kill(name); err != nil {
			t.Fatal(err)
		}
	}
	pay(10)
	testrun.Eventually(t, 30*time.Second, "/metrics saying the broker is down after the majority went", func() bool {
		return strings.Contains(s.metrics(t), "\noutboxlab_broker_up 0\n")
	})
	if c := s.counts(t); c["payments"] != int64(paid) || c["pending"] == 0 {
		t.Fatalf("with the majority down: %v, want %d payments, some pending", c, paid)
	}
	// The log says it: the relays' publishing paused. (Its 'stream leader
	// lost' may come 20 s later: the survivor names its stale leader until
	// its own election times out.)
	s.waitLog(t, `msg="broker lost`)

	// Stopped and started again while the majority is down, as an
	// operator's restart (SIGTERM) and a crash (kill -9).
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		stopping := time.Now()
		if err := s.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		_ = s.cmd.Wait()
		stopped := time.Since(stopping)
		if sig == syscall.SIGTERM && (!s.cmd.ProcessState.Success() || stopped > 15*time.Second) {
			t.Errorf("SIGTERM with the majority down: %v after %s, want exit 0 within 15s", s.cmd.ProcessState, stopped)
		}
		starting := time.Now()
		s = startServe(t, args...)
		started := time.Since(starting)
		t.Logf("%s: stopped in %s, started again in %s with the majority down (the first start: %s)", sig,
			stopped.Round(time.Millisecond), started.Round(time.Millisecond), firstStart.Round(time.Millisecond))
		// A start waits a moment for the broker, not a request's whole
		// deadline: a cluster without its quorum may leave a request
		// unanswered rather than refuse it, and the API is not served
		// until the start is done.
		if started > firstStart+5*time.Second {
			t.Errorf("%s: started again in %s with the majority down, the first start took %s: the API waited on the broker",
				sig, started.Round(time.Millisecond), firstStart.Round(time.Millisecond))
		}
		if !strings.Contains(s.out, "carrying on from the last run: ") {
			t.Errorf("the start with the majority down does not say what it kept:\n%s", s.out)
		}
		// A server answered: not the words for a URL where nobody does.
		if !strings.Contains(s.out, "THE STREAM CANNOT BE OPENED NOW") || strings.Contains(s.out, "NOBODY ANSWERS") {
			t.Errorf("the start with the majority down does not say that the broker answers but the stream cannot be opened:\n%s", s.out)
		}
		if code, body := s.get(t, "/readyz"); code != http.StatusOK {
			t.Errorf("GET /readyz with the majority down: %d %s, want 200 (it takes payments)", code, body)
		}
		pay(10)
	}
	if c := s.counts(t); c["payments"] != int64(paid) {
		t.Fatalf("before the servers came back: %v, want %d payments", c, paid)
	}

	backAt := time.Now()
	for _, name := range down {
		if err := c.Restart(name); err != nil {
			t.Fatal(err)
		}
	}
	pay(5)
	carried(60 * time.Second)
	// 'broker up: stream opened', or 'stream opened with no leader yet'
	// when the cluster had not elected one.
	s.waitLog(t, `stream opened`)
	// Measured, not held to a bound: the cluster's own elections after the
	// restart take from under a second to several (a survivor reports its
	// stale leader meanwhile), as long as the deployment's wait.
	drained := time.Since(backAt)
	// A delivery acked in the outage and not counted comes again after
	// AckWait (2 s): the inbox recognises it, and a second effect, if any,
	// would land by now: a window for a wrong effect.
	time.Sleep(2500 * time.Millisecond)
	after := s.counts(t)
	for name, n := range after {
		want := int64(paid)
		if name == "pending" {
			want = 0
		}
		if n != want {
			t.Errorf("after the servers came back: %s = %d, want %d", name, n, want)
		}
	}
	if seq := lastSeq(t, c.URL(), stream); seq != uint64(paid) {
		t.Errorf("stream %s stored %d messages for %d payments", stream, seq, paid)
	}
	// The outage was the broker's, not a message's: no row took a second
	// attempt, and none waited out a backoff after the servers' return.
	if retried := s.retried(t); len(retried) != 0 {
		t.Errorf("rows published after more than one attempt, by last error: %v", retried)
	}
	t.Logf("%d payments, every POST 201, the slowest in %s; %v after the servers came back, all carried %s after their restart",
		paid, slowest.Round(time.Millisecond), after, drained.Round(time.Millisecond))
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
}

// metrics is the deployment's /metrics page.
func (s *servedDeployment) metrics(t *testing.T) string {
	t.Helper()
	_, body := s.get(t, "/metrics")
	return body
}

// streamLeader asks the cluster at url which server leads stream.
func streamLeader(t *testing.T, url, stream string) string {
	t.Helper()
	info := streamInfo(t, url, stream)
	return info.Cluster.Leader
}

// lastSeq asks the cluster at url for stream's last sequence: how many
// messages it ever stored.
func lastSeq(t *testing.T, url, stream string) uint64 {
	t.Helper()
	return streamInfo(t, url, stream).State.LastSeq
}

// streamInfo asks the cluster at url for stream's info, again until it
// answers with a leader, for 30 s at most.
func streamInfo(t *testing.T, url, stream string) *natsjs.StreamInfo {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := natsjs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var info *natsjs.StreamInfo
	testrun.Awaited(t, 30*time.Second, "stream info "+stream+" with a leader", func() error {
		st, err := js.Stream(ctx, stream)
		if err != nil {
			return err
		}
		if info, err = st.Info(ctx); err == nil && !led(info) {
			err = fmt.Errorf("no leader: %+v", info.Cluster)
		}
		return err
	}, func(err error) bool { return err == nil })
	return info
}

// led says a stream has a leader.
func led(info *natsjs.StreamInfo) bool {
	return info.Cluster != nil && info.Cluster.Leader != ""
}

// waitLog waits up to 20 s for a line of the deployment's log (stderr)
// that holds every one of want.
func (s *servedDeployment) waitLog(t *testing.T, want ...string) {
	t.Helper()
	testrun.Awaited(t, 20*time.Second, fmt.Sprintf("a log line with %q", want), s.stderr.String, func(log string) bool {
		for line := range strings.Lines(log) {
			all := true
			for _, w := range want {
				all = all && strings.Contains(line, w)
			}
			if all {
				return true
			}
		}
		return false
	})
}

// retried counts, by last_error (” once published), the outbox rows that
// took more than one attempt.
func (s *servedDeployment) retried(t *testing.T) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.psql)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT coalesce(last_error, ''), count(*) FROM outbox_messages WHERE attempts > 1 GROUP BY 1")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	var cause string
	var n int64
	if _, err := pgx.ForEachRow(rows, []any{&cause, &n}, func() error { out[cause] = n; return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}
