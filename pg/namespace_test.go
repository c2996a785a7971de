package pg

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
)

// Every database name is put together by a Namespace: the simulator's,
// a chaos worker's within a run's, a learner's.
func TestNamespaceNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ns         Namespace
		kind, want string
		owned      bool
	}{
		{NamespaceOf("tui"), "outbox", "tui_outbox", false},
		{NamespaceOf("live"), "outbox", "live_outbox", false},
		{OwnNamespace("ws_ana"), "naive", "ws_ana_naive", true},
		{OwnNamespace("chaos4242").Sub("0"), "outbox", "chaos4242_0_outbox", true},
		{NamespaceOf("chaos").Sub("shrink"), "naive", "chaos_shrink_naive", false},
		{NamespaceOf("tui").Sub("chaos").Sub("3"), "outbox", "tui_chaos_3_outbox", false},
	} {
		if got := tc.ns.Database(tc.kind); got != tc.want {
			t.Errorf("%q's %s database = %q, want %q", tc.ns.Prefix(), tc.kind, got, tc.want)
		}
		if tc.ns.Owned() != tc.owned {
			t.Errorf("%q owned = %v, want %v", tc.ns.Prefix(), tc.ns.Owned(), tc.owned)
		}
	}
}

// Whose a prefix's databases are depends on who booted the server: on its
// own, a process keeps the prefix and the databases; beside another live
// outboxlab it always takes databases of its own (the pid added) and drops
// them; on a --database-url server only the users that asked for it do
// (NotBootedHere: chaos, serve). Drop then drops exactly what the
// namespace's user made: nothing of a kept namespace, nothing of another
// whose name starts the same.
func TestServerNamespaceDecidesWhoseDatabases(t *testing.T) {
	t.Parallel()
	dir := seededDataDir(t)
	here := boot(t, Options{DataDir: dir})
	ctx := context.Background()
	shared, err := Boot(ctx, Options{DataDir: dir})
	if err != nil || shared.SharedWith == "" {
		t.Fatalf("second boot on the data directory: shared with %q, %v; want the owner's server", shared.SharedWith, err)
	}
	t.Cleanup(func() { _ = shared.Stop() })
	external, err := Boot(ctx, Options{DatabaseURL: here.URL()})
	if err != nil {
		t.Fatalf("boot with --database-url: %v", err)
	}
	t.Cleanup(func() { _ = external.Stop() })
	pid := os.Getpid()

	for _, tc := range []struct {
		server     string
		srv        *Server
		bootedHere bool
		sharing    Sharing
		prefix     string
		owned      bool
	}{
		{"booted here", here, true, BesideOwner, "run", false},
		{"booted here", here, true, NotBootedHere, "run", false},
		{"another outboxlab's", shared, false, BesideOwner, fmt.Sprintf("run%d", pid), true},
		{"another outboxlab's", shared, false, NotBootedHere, fmt.Sprintf("run%d", pid), true},
		{"--database-url", external, false, BesideOwner, "run", false},
		{"--database-url", external, false, NotBootedHere, fmt.Sprintf("run%d", pid), true},
	} {
		ns := tc.srv.Namespace("run", tc.sharing)
		if ns.Prefix() != tc.prefix || ns.Owned() != tc.owned {
			t.Errorf("%s server, sharing %d: namespace %q owned %v, want %q owned %v", tc.server, tc.sharing, ns.Prefix(), ns.Owned(), tc.prefix, tc.owned)
		}
		if tc.srv.BootedHere() != tc.bootedHere {
			t.Errorf("%s server: BootedHere = %v, want %v", tc.server, tc.srv.BootedHere(), tc.bootedHere)
		}
	}

	conn := connect(t, here)
	databases := func() []string {
		t.Helper()
		rows, err := conn.Query(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'nsdrop%' ORDER BY datname`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				t.Fatal(err)
			}
			out = append(out, name)
		}
		return out
	}
	made := []string{"nsdrop_naive", "nsdrop_outbox", "nsdrop_2_outbox", fmt.Sprintf("nsdrop%d_outbox", pid)}
	slices.Sort(made)
	for _, tc := range []struct {
		name  string
		ns    Namespace
		kinds []string
		kept  []string
	}{
		{"a kept namespace drops nothing", NamespaceOf("nsdrop"), []string{"outbox", "naive"}, made},
		{"its own kinds only", OwnNamespace("nsdrop"), []string{"outbox"},
			[]string{"nsdrop_2_outbox", "nsdrop_naive", fmt.Sprintf("nsdrop%d_outbox", pid)}},
		{"not another's that starts the same (DropAll)", OwnNamespace("nsdrop"), nil,
			[]string{"nsdrop_2_outbox", fmt.Sprintf("nsdrop%d_outbox", pid)}},
		{"a worker's within a run's (DropAll)", OwnNamespace("nsdrop").Sub("2"), nil,
			[]string{"nsdrop_naive", "nsdrop_outbox", fmt.Sprintf("nsdrop%d_outbox", pid)}},
		{"a kind it never made", OwnNamespace("nsdrop"), []string{"absent"}, made},
		{"beside another outboxlab: its own", shared.Namespace("nsdrop", BesideOwner), []string{"outbox", "naive"},
			[]string{"nsdrop_2_outbox", "nsdrop_naive", "nsdrop_outbox"}},
		{"on its own server: kept", here.Namespace("nsdrop", NotBootedHere), []string{"outbox", "naive"}, made},
	} {
		t.Run(tc.name, func(t *testing.T) {
			there := databases()
			for _, name := range made {
				if slices.Contains(there, name) {
					continue // left by the case before: cloning it again takes seconds
				}
				if err := here.CreateDatabase(ctx, name); err != nil {
					t.Fatal(err)
				}
			}
			drop := func() error { return tc.ns.Drop(ctx, here, tc.kinds...) }
			if tc.kinds == nil {
				drop = func() error { return tc.ns.DropAll(ctx, here) }
			}
			if err := drop(); err != nil {
				t.Fatalf("drop %q's %v: %v", tc.ns.Prefix(), tc.kinds, err)
			}
			want := slices.Clone(tc.kept)
			slices.Sort(want)
			if got := databases(); !slices.Equal(got, want) {
				t.Errorf("after %q dropped %v: databases %v, want %v", tc.ns.Prefix(), tc.kinds, got, want)
			}
		})
	}
}
