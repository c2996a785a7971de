package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/engine/jetstream/jstest"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/telemetry/telemetrytest"
)

// servedDeployment is `outboxlab serve --broker nats` running as a child
// process, and what it printed before serving.
type servedDeployment struct {
	cmd    *exec.Cmd
	stderr *syncBuffer // all it wrote on stderr (also copied to the test's)
	out    string      // stdout up to "serving"
	api    string      // http://HOST:PORT
	psql   string      // the URL its outbox line names
}

// startServeNATS starts the program as a user would, serve --broker nats
// --http on a free port over dir, and reads its stdout until it serves.
func startServeNATS(t *testing.T, dir string, extra ...string) *servedDeployment {
	t.Helper()
	return startServe(t, append([]string{"--broker", "nats", "--data-dir", dir}, extra...)...)
}

// startServe starts serve --http on a free port with args and reads its
// stdout until it serves.
func startServe(t *testing.T, extra ...string) *servedDeployment {
	t.Helper()
	args := append([]string{"serve", "--http", "127.0.0.1:0"}, extra...)
	cmd := outboxlabChild(t, 3*time.Minute, strings.Join(args, " "))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &servedDeployment{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = io.MultiWriter(os.Stderr, s.stderr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		line := lines.Text()
		s.out += line + "\n"
		if rest, ok := strings.CutPrefix(line, "outbox:"); ok {
			_, u, _ := strings.Cut(rest, "psql '")
			s.psql = strings.TrimSuffix(u, "'")
		}
		if rest, ok := strings.CutPrefix(line, "api:"); ok {
			s.api = strings.TrimSpace(rest)
		}
		if strings.HasPrefix(line, "serving") {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			if s.api == "" || !strings.Contains(s.psql, "/live_outbox") {
				t.Fatalf("serve printed no api or no psql command for live_outbox:\n%s", s.out)
			}
			return s
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	t.Fatalf("serve never said it was serving:\n%s", s.out)
	return nil
}

// syncBuffer is a buffer a child's output is copied to while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// pay posts payment i with Idempotency-Key restart-i and returns the
// payment id and whether the answer was a replay.
func (s *servedDeployment) pay(t *testing.T, i int) (id string, replayed bool) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.api+"/payments", strings.NewReader(fmt.Sprintf(`{"client_id":"acme","amount_cents":%d,"currency":"EUR"}`, 1000+i)))
	req.Header.Set("Idempotency-Key", fmt.Sprintf("restart-%d", i))
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("payment %d: %v", i, err)
	}
	defer resp.Body.Close()
	var body struct {
		PaymentID string `json:"payment_id"`
	}
	if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&body) != nil || body.PaymentID == "" {
		t.Fatalf("payment %d: %s", i, resp.Status)
	}
	return body.PaymentID, resp.Header.Get("Idempotent-Replayed") == "true"
}

func (s *servedDeployment) fault(t *testing.T, path string) {
	t.Helper()
	resp, err := http.Post(s.api+path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST %s: %s", path, resp.Status)
	}
}

// streamMessages is outboxlab_broker_stream_messages on /metrics: what the
// JetStream server says the stream holds, -1 before a read.
func (s *servedDeployment) streamMessages(t *testing.T) int64 {
	t.Helper()
	body, _ := telemetrytest.Scrape(t, s.api+"/metrics")
	for l := range strings.Lines(body) {
		if strings.HasPrefix(l, "outboxlab_broker_stream_messages{") {
			var n float64
			if _, err := fmt.Sscan(l[strings.LastIndexByte(l, ' ')+1:], &n); err == nil {
				return int64(n)
			}
		}
	}
	return -1
}

// counts reads the deployment's database as psql would.
func (s *servedDeployment) counts(t *testing.T) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.psql)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	out := map[string]int64{}
	for name, sql := range map[string]string{
		"payments":               "SELECT count(*) FROM payments",
		"pending":                "SELECT count(*) FROM outbox_messages WHERE published_at IS NULL",
		"published":              "SELECT count(*) FROM outbox_messages WHERE published_at IS NOT NULL",
		"accounting":             "SELECT count(*) FROM inbox_messages WHERE consumer_name = 'accounting'",
		"notifications inbox":    "SELECT count(*) FROM inbox_messages WHERE consumer_name = 'notifications'",
		"ledger":                 "SELECT count(*) FROM ledger_entries",
		"ledger distinct":        "SELECT count(DISTINCT message_id) FROM ledger_entries",
		"notifications":          "SELECT count(*) FROM notifications",
		"notifications distinct": "SELECT count(DISTINCT message_id) FROM notifications",
	} {
		var n int64
		if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		out[name] = n
	}
	return out
}

// The deployment keeps its promise across a crash of the service, tried as
// a user would: serve --broker nats on a data directory, payments posted
// over HTTP with Idempotency-Keys, some carried, more while the relay is
// crashed and the broker stopped (they stay pending in the outbox), then
// kill -9. Started again on the same data directory it says what it kept,
// publishes the pending rows, and psql's counts show every payment
// published once and applied once by each consumer; a key used before the
// kill replays the same payment with Idempotent-Replayed. --fresh then
// empties it on purpose and says so: a start that dropped live_outbox would
// show 0 payments after the restart, and the same key would make a new one.
func TestServeDeploymentSurvivesKill9(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("boots PostgreSQL three times")
	}
	dir := seededDataDir(t)
	// The deployment runs the actors of a scene of the default's settings
	// (outbox mode, one relay, two consumers) but for a 2 s lease and a
	// 2 s AckWait. After the kill, the row the relay held is claimed again
	// once its lease ends, and a delivery left unacknowledged comes again
	// once its AckWait ends (until then the stream keeps the messages the
	// consumers acked only in part): at the default 30 s each, those waits
	// were 30 of this test's 35 s.
	scenesDir := t.TempDir()
	scene := "title: the default's actors, 2 s lease and AckWait\nteaches: t\nmode: outbox\nlease: 2s\nack-timeout: 2s\n\nrequest amount=1250 client=acme\ndrain\n\nexpect outbox ledger_entries == 1\n"
	if err := os.WriteFile(filepath.Join(scenesDir, "restart.scene"), []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	onScene := []string{"--scenes", scenesDir, "--scene", "restart"}
	s := startServeNATS(t, dir, onScene...)
	if !strings.Contains(s.out, "database live_outbox made") {
		t.Errorf("first start does not say it made the database:\n%s", s.out)
	}
	if !strings.Contains(s.out, "AckWait 2s") {
		t.Errorf("the stream line does not give the scene's AckWait (2s):\n%s", s.out)
	}
	ids := map[int]string{}
	for i := range 5 {
		ids[i], _ = s.pay(t, i)
	}
	testrun.Awaited(t, 30*time.Second, "the first 5 carried", func() map[string]int64 { return s.counts(t) }, func(c map[string]int64) bool {
		return c["published"] >= 5 && c["accounting"] >= 5
	})
	s.fault(t, "/faults/crash/relay-1")
	s.fault(t, "/faults/broker/stop")
	for i := 5; i < 12; i++ {
		ids[i], _ = s.pay(t, i)
	}
	before := s.counts(t)
	if before["payments"] != 12 || before["pending"] != 7 {
		t.Fatalf("before the kill: %v, want 12 payments, 7 pending", before)
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()

	s = startServeNATS(t, dir, onScene...)
	if !strings.Contains(s.out, "carrying on from the last run: 12 payments, 7 outbox rows to publish") {
		t.Errorf("the restart does not say what it kept:\n%s", s.out)
	}
	testrun.Awaited(t, 60*time.Second, "carried after the restart", func() map[string]int64 { return s.counts(t) }, func(c map[string]int64) bool {
		return c["published"] >= 12 && c["accounting"] >= 12 && c["notifications inbox"] >= 12
	})
	time.Sleep(500 * time.Millisecond) // a window for a wrong effect: a second one, if any, would land now
	after := s.counts(t)
	for name, n := range after {
		want := int64(12)
		if name == "pending" {
			want = 0
		}
		if n != want {
			t.Errorf("after the restart: %s = %d, want %d", name, n, want)
		}
	}
	t.Logf("before kill -9: %v; after the restart: %v", before, after)
	// Both consumers acked all 12: the broker purges them a moment after
	// (limits retention, PurgeAcked), as the stream line says; the stream's
	// message count on /metrics is the server's, read afresh.
	if !strings.Contains(s.out, "a message purged once every consumer acked it") {
		t.Errorf("the start does not say how a message leaves the stream:\n%s", s.out)
	}
	t.Run("the stream empties", func(t *testing.T) { // a failure here leaves the replays below to be checked
		testrun.Awaited(t, 10*time.Second, "every message acked by both consumers: the stream holding none", func() int64 { return s.streamMessages(t) },
			func(n int64) bool { return n == 0 })
	})
	for _, i := range []int{2, 9} { // one carried before the kill, one pending at it
		id, replayed := s.pay(t, i)
		if id != ids[i] || !replayed {
			t.Errorf("key restart-%d after the restart: payment %s replayed %v, want %s replayed", i, id, replayed, ids[i])
		}
	}
	if c := s.counts(t); c["payments"] != 12 {
		t.Errorf("the replays made payments: %d, want 12", c["payments"])
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()

	s = startServeNATS(t, dir, append(onScene, "--fresh")...)
	if !regexp.MustCompile(`--fresh: database live_outbox and stream OUTBOXLAB_LIVE_[0-9A-F]{12} emptied on purpose`).MatchString(s.out) {
		t.Errorf("--fresh does not say it emptied them:\n%s", s.out)
	}
	if c := s.counts(t); c["payments"] != 0 || c["accounting"] != 0 {
		t.Errorf("after --fresh: %v, want nothing", c)
	}
	if id, replayed := s.pay(t, 2); id == ids[2] || replayed {
		t.Errorf("after --fresh the key restart-2 replayed %s", id)
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
	if pids, _ := pg.Postmasters(filepath.Join(dir, "pgdata")); len(pids) != 0 {
		t.Errorf("%d servers left running", len(pids))
	}
}

// A deployment on a server outboxlab did not boot (--database-url) and a
// NATS cluster (a URL list): its database is live_outbox there too, kept
// at exit and found by the next start (before, a database of the run's pid,
// dropped at exit, and the stream deleted); the stream has 3 replicas.
func TestServeDeploymentOnTheUsersServerKeepsItsDatabase(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("boots PostgreSQL and a 3-node NATS cluster")
	}
	ctx := context.Background()
	host, err := pg.Boot(ctx, pg.Options{DataDir: seededDataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = host.Stop() })
	if err := host.CreateDatabase(ctx, "users_app"); err != nil {
		t.Fatal(err)
	}
	cluster := jstest.StartCluster(t, 3)
	args := []string{"--database-url", host.DatabaseURL("users_app"), "--broker", cluster.URL()}
	s := startServe(t, args...)
	if !regexp.MustCompile(`OUTBOXLAB_LIVE_[0-9A-F]{12}: 3 replicas on cluster`).MatchString(s.out) {
		t.Errorf("the stream is not said to have 3 replicas:\n%s", s.out)
	}
	ids := map[int]string{}
	for i := range 3 {
		ids[i], _ = s.pay(t, i)
	}
	testrun.Awaited(t, 30*time.Second, "3 carried", func() map[string]int64 { return s.counts(t) }, func(c map[string]int64) bool {
		return c["accounting"] >= 3 && c["notifications inbox"] >= 3
	})
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()

	s = startServe(t, args...)
	if !regexp.MustCompile(`carrying on from the last run: 3 payments, 0 outbox rows to publish, 0 messages in stream OUTBOXLAB_LIVE_[0-9A-F]{12}`).MatchString(s.out) {
		t.Errorf("the second start did not find the first one's database:\n%s", s.out)
	}
	if id, replayed := s.pay(t, 1); id != ids[1] || !replayed {
		t.Errorf("key restart-1 after the restart: %s replayed %v, want %s replayed", id, replayed, ids[1])
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
}
