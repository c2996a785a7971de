package sim

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// `outboxlab run` beside another live outboxlab runs on that one's server
// in databases of its own, run<pid>_*, and drops them at the end, so the
// owner's run_* are never reset under it; the owner's server stays up.
func TestRunHeadlessBesideAnotherOutboxlab(t *testing.T) {
	dir, owner := pgtest.Owner(t)
	ctx := context.Background()
	if _, err := RunHeadless(ctx, Headless{Scene: "rollback", PG: pg.Options{DataDir: dir}, DBPrefix: "run"}); err != nil {
		t.Fatalf("run beside another outboxlab: %v", err)
	}
	conn, err := pgx.Connect(ctx, owner.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname LIKE $1 OR datname LIKE 'run\_%'`, fmt.Sprintf(`run%d\_%%`, os.Getpid())).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d databases of the run left on the owner's server, want its own dropped and the owner's run_* untouched", n)
	}
	if err := owner.Alive(ctx); err != nil {
		t.Errorf("the owner's server after the run: %v", err)
	}
}
