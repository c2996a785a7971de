package sim

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// privateServer boots a server of this test's own, for a test that kills it.
func privateServer(t *testing.T) *pg.Server {
	t.Helper()
	srv, err := pg.Boot(context.Background(), pg.Options{DataDir: pgtest.SeededDataDir(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	return srv
}

// kill9 kills the postmaster behind the simulator's back, as a user with
// `kill -9` (or the OOM killer) would.
func kill9(t *testing.T, srv *pg.Server) (pid int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(srv.PGData, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err = strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	return pid
}

// PostgreSQL killed under a run: the run stops at once with one message
// (not thousands of relay errors), the oracle is stale instead of showing old
// figures, every command but restart-postgres is refused, and
// restart-postgres brings the server back with what was committed.
func TestPostgresKilledIsSaidAndRestartable(t *testing.T) {
	t.Parallel()
	srv := privateServer(t)
	sc := parseScene(t, "killed", "title: t\nteaches: t\nrequest\nfinish api\nexpect outbox payments == 1\n")
	s, err := New(context.Background(), Config{Server: srv, Settings: sc.Settings, DBPrefix: "down"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	doAll(t, s, sc.Steps)
	pid := kill9(t, srv)

	ctx := context.Background()
	if err := s.Do(ctx, sc.Steps[0]); err != nil { // a request only queues
		t.Fatalf("request: %v", err)
	}
	err = s.Do(ctx, parseScene(t, "d", "title: t\nteaches: t\ndrain\nexpect outbox payments == 1\n").Steps[0])
	if !errors.Is(err, ErrPostgresDown) {
		t.Fatalf("drain after the kill: %v, want PostgreSQL stopped", err)
	}
	// The pid as ps shows it, in each language: not grouped as a number
	// (28,979 in English, 28.979 in Spanish).
	var down *PostgresDownError
	if errors.As(err, &down) {
		for _, lang := range []string{"en", "es"} {
			if said := down.Why.In(catalog.For(lang)); !strings.Contains(said, "pid "+strconv.Itoa(pid)) {
				t.Errorf("%s: the dead postmaster is not named by its pid %d: %s", lang, pid, said)
			}
		}
	}
	// The actor that met the dead server says so, then the cause, once:
	// not one error per step of every actor.
	var kinds []string
	for _, e := range s.Timeline(0) {
		if e.Kind == "down" || e.Kind == "error" {
			kinds = append(kinds, string(e.Kind))
		}
		if e.Kind == "down" && !strings.Contains(e.Explain, "is gone") {
			t.Errorf("the down entry does not name the dead postmaster: %s", e.Explain)
		}
	}
	if strings.Join(kinds, ",") != "error,down" {
		t.Errorf("timeline errors and downs = %v, want one error then one down", kinds)
	}
	if _, err := s.Oracles(ctx); !errors.Is(err, ErrPostgresDown) {
		t.Fatalf("oracle while down: %v, want stale (PostgreSQL stopped)", err)
	}
	if _, err := s.Step(ctx); !errors.Is(err, ErrPostgresDown) {
		t.Fatalf("step while down: %v", err)
	}
	// The request that met the dead server failed, as its client was told;
	// what was committed before the kill is there after the restart.
	restart := parseScene(t, "r", "title: t\nteaches: t\nrestart-postgres\nrequest\ndrain\nexpect outbox payments == 2\n")
	doAll(t, s, restart.Steps)
	o := oracleOf(t, s, "outbox")
	if o.Payments != 2 || o.LostEvents != 0 || o.Pending != 0 || o.Effects != 4 {
		t.Fatalf("after the restart: payments %d lost %d pending %d effects %d, want 2, 0, 0, 4", o.Payments, o.LostEvents, o.Pending, o.Effects)
	}
}

// An external server (--database-url) that stops is waited for, not
// restarted: the simulation says it does not answer, and goes on by itself
// once it answers again.
func TestExternalPostgresGoneThenBack(t *testing.T) {
	t.Parallel()
	priv := privateServer(t)
	ctx := context.Background()
	ext, err := pg.Boot(ctx, pg.Options{DatabaseURL: priv.DatabaseURL("postgres")})
	if err != nil {
		t.Fatal(err)
	}
	sc := parseScene(t, "ext", "title: t\nteaches: t\nrequest\nfinish api\ndrain\nexpect outbox payments == 1\n")
	s, err := New(ctx, Config{Server: ext, Settings: sc.Settings, DBPrefix: "ext"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	doAll(t, s, sc.Steps[:2])
	kill9(t, priv)
	err = s.Do(ctx, sc.Steps[2])
	var down *PostgresDownError
	if !errors.As(err, &down) || !down.External || !strings.Contains(err.Error(), "goes on when it answers again") {
		t.Fatalf("drain with the external server gone: %v", err)
	}
	if err := s.Do(ctx, parseScene(t, "r", "title: t\nteaches: t\nrestart-postgres\nexpect outbox payments == 1\n").Steps[0]); err == nil ||
		!strings.Contains(err.Error(), "needs the embedded server") {
		t.Fatalf("restart-postgres on an external server: %v", err)
	}
	if err := priv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	doAll(t, s, sc.Steps[2:])
	if o := oracleOf(t, s, "outbox"); o.Payments != 1 || o.Effects != 2 || o.Pending != 0 {
		t.Fatalf("after the server came back: payments %d effects %d pending %d", o.Payments, o.Effects, o.Pending)
	}
}
