package ui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// The simulator opened on the data directory of another live outboxlab
// boots onto that one's server and takes databases of its own, tui<pid>_*,
// so neither resets the other's tui_*; psql shows them, and quitting drops
// them and leaves the owner's server up.
func TestSimulatorBesideAnotherOutboxlab(t *testing.T) {
	dir, owner := pgtest.Owner(t)
	ctx := context.Background()
	res := newResources()
	m, err := setup(t.Context(), Options{DBPrefix: DefaultDBPrefix, PG: pg.Options{DataDir: dir}}, res)
	if err != nil {
		t.Fatal(err)
	}
	res.bootDone = make(chan struct{})
	d := newDriverFor(t, m)
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = d.M.Close()
		}
	})
	d.waitFor("the simulation", func(m Model) bool { return m.sim != nil })
	d.settle()

	own := fmt.Sprintf("%s%d", DefaultDBPrefix, os.Getpid())
	if d.M.opts.DBPrefix != own {
		t.Fatalf("databases named %s_*, want %s_* beside the owner's tui_*", d.M.opts.DBPrefix, own)
	}
	if psql := strings.Join(d.M.psqlCommands(), "\n"); !strings.Contains(psql, " "+own+"_") {
		t.Errorf("psql commands name other databases than %s_*:\n%s", own, psql)
	}
	conn, err := pgx.Connect(ctx, owner.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func() int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname LIKE $1`, own+`\_%`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != len(d.M.settings.Pipelines()) {
		t.Errorf("%d databases %s_* while the simulator runs, want one a pipeline (%v)", n, own, d.M.settings.Pipelines())
	}
	closed = true
	if err := d.M.Close(); err != nil {
		t.Fatalf("quit: %v", err)
	}
	if n := count(); n != 0 {
		t.Errorf("%d databases %s_* left after quitting, want them dropped", n, own)
	}
	if err := owner.Alive(ctx); err != nil {
		t.Errorf("the owner's server after the simulator quit: %v", err)
	}
}
