package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/internal/testrun"
)

// waitDown asks Alive until it reports the server down: SIGKILL is
// delivered at once, but the process is gone only when the kernel is done.
func waitDown(t *testing.T, srv *Server) error {
	t.Helper()
	return testrun.Awaited(t, 10*time.Second, "Alive saying the server is down", func() error {
		return srv.Alive(context.Background())
	}, func(err error) bool { return err != nil })
}

// A postmaster killed behind outboxlab's back (kill -9, the OOM killer) is
// reported by Alive, and Restart brings it back on the same URL with what
// was committed; killed again, Stop takes it as stopped.
func TestKilledPostmasterIsReportedAndRestarted(t *testing.T) {
	t.Parallel()
	srv := boot(t, Options{DataDir: seededDataDir(t), NoDownload: true})
	ctx := context.Background()
	url := srv.URL()
	if _, err := connect(t, srv).Exec(ctx, `CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)`); err != nil {
		t.Fatal(err)
	}
	// Alive starts a backend to ask; AliveVia asks through one held open
	// and starts none. pg_stat_database counts a session when it ends.
	held := connect(t, srv)
	counted := func(want int64) int64 { t.Helper(); return sessionsEnded(t, held, want) }
	before := counted(0)
	if err := srv.Alive(ctx); err != nil {
		t.Fatalf("Alive on a running server: %v", err)
	}
	if n := counted(before + 1); n != before+1 {
		t.Fatalf("sessions after Alive: %d, want %d", n, before+1)
	}
	if err := srv.AliveVia(ctx, held); err != nil {
		t.Fatalf("AliveVia on a running server: %v", err)
	}
	// One Alive more: had AliveVia started a backend, it ended before
	// this one began, and both are counted.
	if err := srv.Alive(ctx); err != nil {
		t.Fatal(err)
	}
	if n := counted(before + 2); n != before+2 {
		t.Errorf("sessions after AliveVia and Alive: %d, want %d: AliveVia started a backend", n, before+2)
	}

	pid := postmasterPID(t, srv)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := waitDown(t, srv)
	if !errors.Is(err, ErrDown) {
		t.Fatalf("Alive after kill -9: %v, want ErrDown", err)
	}
	for _, want := range []string{"PostgreSQL stopped", fmt.Sprintf("postmaster pid %d is gone", pid), "last log lines"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Alive after kill -9: %q, want it to say %q", err, want)
		}
	}
	if srv.Running() {
		t.Errorf("Running() after the postmaster died = true")
	}

	start := time.Now()
	if err := srv.Restart(ctx); err != nil {
		t.Fatalf("restart after kill -9: %v", err)
	}
	t.Logf("restart after kill -9 took %v", time.Since(start))
	if err := srv.Alive(ctx); err != nil {
		t.Errorf("Alive after restart: %v", err)
	}
	if srv.URL() != url {
		t.Errorf("restart changed the URL %s → %s", url, srv.URL())
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect with the URL from before the kill: %v", err)
	}
	defer conn.Close(ctx)
	var x int
	if err := conn.QueryRow(ctx, `SELECT x FROM kept`).Scan(&x); err != nil || x != 7 {
		t.Errorf("committed row after kill -9 and restart: %d, %v; want 7", x, err)
	}

	// Killed again, asked through a connection held open: a backend
	// outlives its postmaster for a moment and may still answer on it, but
	// AliveVia says the postmaster is gone, as Alive does.
	pid = postmasterPID(t, srv)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = testrun.Awaited(t, 10*time.Second, "AliveVia saying the server is down", func() error {
		return srv.AliveVia(ctx, conn)
	}, func(err error) bool { return err != nil })
	if !errors.Is(err, ErrDown) || !strings.Contains(err.Error(), fmt.Sprintf("postmaster pid %d is gone", pid)) {
		t.Fatalf("AliveVia after a second kill -9: %v, want ErrDown saying pid %d is gone", err, pid)
	}
	if err := waitDown(t, srv); err == nil {
		t.Fatal("Alive after a second kill -9: nil")
	}
	if err := srv.Stop(); err != nil {
		t.Errorf("Stop of a killed server: %v, want nil (it is stopped)", err)
	}
}

// For --database-url, Alive is a connection attempt with a short timeout
// (the reachable case is in TestExternalDatabaseURL).
func TestAliveOfAnUnreachableExternalServer(t *testing.T) {
	t.Parallel()
	gone := &Server{external: "postgres://outboxlab:secret@127.0.0.1:1/none"}
	start := time.Now()
	err := gone.Alive(context.Background())
	if !errors.Is(err, ErrDown) || !strings.Contains(err.Error(), "does not answer") || strings.Contains(err.Error(), "secret") {
		t.Errorf("Alive of an unreachable external server: %v, want ErrDown, no password", err)
	}
	if took := time.Since(start); took > aliveTimeout+time.Second {
		t.Errorf("Alive took %v, want at most about %v", took, aliveTimeout)
	}
}
