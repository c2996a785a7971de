package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/outboxlab/outboxlab/pg"
)

// usersServer is a PostgreSQL outboxlab did not boot, as a user's own is:
// no template of outboxlab's on it, and a database of the user's
// (users_app, made from template1). It returns that database's URL and a
// connection to the server's "postgres" database to look with.
func usersServer(t *testing.T) (string, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	host, err := pg.Boot(ctx, pg.Options{DataDir: seededDataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = host.Stop() })
	admin, err := pgx.Connect(ctx, host.DatabaseURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close(context.Background()) })
	for _, q := range []string{
		`ALTER DATABASE outboxlab_template IS_TEMPLATE false`,
		`DROP DATABASE outboxlab_template`,
		`CREATE DATABASE users_app`,
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return host.DatabaseURL("users_app"), admin
}

// databases are the server's databases whose names start with prefix.
func databases(t *testing.T, admin *pgx.Conn, prefix string) []string {
	t.Helper()
	rows, err := admin.Query(context.Background(), `SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname`, prefix)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// On a --database-url server, which has no template of outboxlab's to
// clone, run makes its databases empty and migrates them (it stopped at
// `template database "outboxlab_template" does not exist` before), keeps
// them (the user's server, run's names) and empties them for the next run;
// chaos makes databases of its own there and drops them at the end.
func TestRunAndChaosOnAUsersServer(t *testing.T) {
	t.Parallel()
	url, admin := usersServer(t)
	for i := range 2 {
		var out, errb bytes.Buffer
		if code := run([]string{"run", "dual-write-crash", "--database-url", url}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "expected outcome held") {
			t.Fatalf("run %d on the user's server: exit %d\n%s%s", i+1, code, lastLines(out.String(), 8), errb.String())
		}
	}
	if got := strings.Join(databases(t, admin, "run_"), " "); got != "run_naive run_outbox" {
		t.Errorf("run's databases on the user's server: %q, want run_naive run_outbox", got)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"chaos", "--runs", "4", "--parallel", "1", "--database-url", url}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "outbox chain   0 of 4 runs broke a guarantee") {
		t.Fatalf("chaos on the user's server: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if left := databases(t, admin, "chaos"); len(left) > 0 {
		t.Errorf("chaos left its databases on the user's server: %v", left)
	}
}
