package workshop

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/pg"
)

// sizeFor are the server settings a room of n needs.
func sizeFor(n int) map[string]string {
	return map[string]string{
		"max_connections":       strconv.Itoa(maxConnections(n)),
		"max_replication_slots": strconv.Itoa(replication(n)),
		"max_wal_senders":       strconv.Itoa(replication(n)),
	}
}

// bootSized boots PostgreSQL sized for the room. pg writes Options.Settings
// at initdb only, so a cluster made earlier (the simulator's, a smaller
// room's) is raised with ALTER SYSTEM and restarted once: these settings
// take effect at start only. A larger earlier size is kept.
func bootSized(ctx context.Context, opts pg.Options, n int) (*pg.Server, error) {
	want := sizeFor(n)
	settings := map[string]string{}
	for k, v := range opts.Settings {
		settings[k] = v
	}
	for k, v := range want {
		settings[k] = v
	}
	opts.Settings = settings
	srv, err := pg.Boot(ctx, opts)
	if err != nil {
		return nil, err
	}
	raised, err := raise(ctx, srv, want)
	if err != nil || !raised {
		if err != nil {
			_ = srv.Stop()
		}
		return srv, err
	}
	if err := srv.Stop(); err != nil {
		return nil, fmt.Errorf("workshop: restart PostgreSQL for the room's size: %w", err)
	}
	opts.Fresh = false
	return pg.Boot(ctx, opts)
}

// raise sets with ALTER SYSTEM each setting the server runs below; raised
// says a restart is needed.
func raise(ctx context.Context, srv *pg.Server, want map[string]string) (raised bool, err error) {
	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		return false, fmt.Errorf("workshop: size PostgreSQL: %w", err)
	}
	defer conn.Close(context.Background())
	for name, v := range want {
		var cur string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&cur); err != nil {
			return false, fmt.Errorf("workshop: read %s: %w", name, err)
		}
		have, _ := strconv.Atoi(cur)
		need, _ := strconv.Atoi(v)
		if have >= need {
			continue
		}
		if _, err := conn.Exec(ctx, "ALTER SYSTEM SET "+pgx.Identifier{name}.Sanitize()+" = "+strconv.Itoa(need)); err != nil {
			return false, fmt.Errorf("workshop: ALTER SYSTEM SET %s: %w", name, err)
		}
		raised = true
	}
	return raised, nil
}
