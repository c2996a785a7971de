package pg

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
)

// A second outboxlab on a data directory a live one owns uses the owner's
// server instead of refusing: it reads and writes, says whose server it is,
// and its Stop leaves the owner's server running. With --fresh (which would
// delete the owner's cluster) it is still refused.
func TestSecondOutboxlabSharesTheOwnersServer(t *testing.T) {
	dir := seededDataDir(t)
	owner := boot(t, Options{DataDir: dir})
	ctx := context.Background()

	second, err := Boot(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatalf("second boot on a data directory in use: %v", err)
	}
	if second.SharedWith != strconv.Itoa(os.Getpid()) || second.Port != owner.Port {
		t.Fatalf("shared with %q on port %d; want pid %d on %d", second.SharedWith, second.Port, os.Getpid(), owner.Port)
	}
	if err := second.CreateDatabase(ctx, "shared_probe"); err != nil {
		t.Fatalf("a database of its own on the shared server: %v", err)
	}
	if err := second.DropDatabase(ctx, "shared_probe"); err != nil {
		t.Fatal(err)
	}
	if err := second.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := owner.Alive(ctx); err != nil {
		t.Fatalf("the owner's server after the second one stopped: %v", err)
	}
	if _, err := Boot(ctx, Options{DataDir: dir, Fresh: true}); !errors.Is(err, ErrDataDirInUse) {
		t.Fatalf("--fresh on a data directory in use: %v, want it refused", err)
	}
}

// The owner of a server another outboxlab uses keeps it up until that one
// ends: its Stop waits, and returns once the other has stopped.
func TestTheOwnerKeepsItsServerUntilTheLastSharerEnds(t *testing.T) {
	dir := seededDataDir(t)
	ctx := context.Background()
	owner, err := Boot(ctx, Options{DataDir: dir, Say: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := Boot(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatalf("second boot: %v", err)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- owner.Stop() }()
	select {
	case err := <-stopped:
		t.Fatalf("the owner stopped its server under the second outboxlab (%v)", err)
	case <-time.After(time.Second):
	}
	if err := owner.Alive(ctx); err != nil {
		t.Fatalf("the server while the second one uses it: %v", err)
	}
	// A third cannot join a server about to stop.
	if _, err := Boot(ctx, Options{DataDir: dir, NoDownload: true}); !errors.Is(err, ErrDataDirInUse) {
		t.Errorf("a third boot while the owner stops: %v, want ErrDataDirInUse", err)
	}
	if err := second.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the owner's Stop did not return after the second outboxlab ended")
	}
	if pid, up := owner.postmaster(); up {
		t.Errorf("the server (pid %d) still runs after both ended", pid)
	}
}

// A second outboxlab started while the owner still boots waits for its
// server instead of refusing.
func TestASecondOutboxlabWaitsForTheOwnersBoot(t *testing.T) {
	dir := tempDataDir(t) // a cold boot: seconds
	ctx := context.Background()
	booted := make(chan *Server, 1)
	go func() {
		s, err := Boot(ctx, Options{DataDir: dir})
		if err != nil {
			t.Errorf("owner: %v", err)
		}
		booted <- s
	}()
	// Once the owner holds the data directory.
	testrun.Eventually(t, 30*time.Second, "the owner took the data directory", func() bool { return ownerBooting(dir) })
	second, err := Boot(ctx, Options{DataDir: dir})
	owner := <-booted
	if owner != nil {
		t.Cleanup(func() { _ = owner.Stop() })
	}
	if err != nil {
		t.Fatalf("second boot while the owner boots: %v", err)
	}
	if err := second.Stop(); err != nil {
		t.Fatal(err)
	}
}

// A restart on the same data directory listens on the same port when it is
// free, so a psql command copied before still works; when another program
// holds it, on another.
func TestARestartKeepsItsPortWhenFree(t *testing.T) {
	dir := seededDataDir(t)
	ctx := context.Background()
	first, err := Boot(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	port := first.Port
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	second, err := Boot(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if second.Port != port {
		t.Errorf("the second start listens on %d, want %d as before", second.Port, port)
	}
	if err := second.Stop(); err != nil {
		t.Fatal(err)
	}
	taken, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Skipf("port %d taken meanwhile: %v", port, err)
	}
	defer taken.Close()
	third, err := Boot(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatalf("a start whose last port is taken: %v", err)
	}
	defer third.Stop()
	if third.Port == port {
		t.Errorf("the third start listens on the taken port %d", port)
	}
}
