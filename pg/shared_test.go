package pg

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"
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
