package deploy

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

var (
	//go:embed sql/claim.sql
	sqlClaim string
	//go:embed sql/claim_holder.sql
	sqlClaimHolder string
	//go:embed sql/unclaim.sql
	sqlUnclaim string
	//go:embed sql/kept.sql
	sqlKept string
)

// claimKey is the advisory lock a deployment holds on its database (below
// 2^32: pg_locks shows it as objid, classid 0).
const claimKey = 0x0b0c1a55

// ErrClaimed says another deployment runs on the database: two would share
// one outbox, each with relays publishing to its own broker, and a --fresh
// of one would empty the other's rows under it.
var ErrClaimed = errors.New("another outboxlab deployment runs on this database")

// Claim takes the deployment's lock on the database at databaseURL and
// holds it until release is called (or the process dies: the lock is the
// session's). who names the holder for the message a second one gets.
func Claim(ctx context.Context, databaseURL, who string) (release func(), err error) {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("claim the database: %w", err)
	}
	cfg.RuntimeParams["application_name"] = who
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("claim the database: %w", err)
	}
	var ok bool
	if err := conn.QueryRow(ctx, sqlClaim, int64(claimKey)).Scan(&ok); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("claim the database: %w", err)
	}
	if !ok {
		var name, addr string
		var pid int
		_ = conn.QueryRow(ctx, sqlClaimHolder, int64(claimKey)).Scan(&name, &pid, &addr)
		conn.Close(ctx)
		return nil, fmt.Errorf("%w (%q, its session pid %d from %s): stop it first, or give this one another database", ErrClaimed, name, pid, addr)
	}
	return func() {
		// Unlocked while the session is open, so that the lock is free
		// when release returns; closing alone leaves it to the backend's
		// exit, which comes later. If the unlock fails, the close ends the
		// lock all the same.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = conn.Exec(ctx, sqlUnclaim, int64(claimKey))
		conn.Close(ctx)
	}, nil
}

// Kept counts what the deployment's database holds from its last run: its
// payments, and the outbox rows not published yet.
func Kept(ctx context.Context, databaseURL string) (payments, pending int64, err error) {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return 0, 0, fmt.Errorf("count what was kept: %w", err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, sqlKept).Scan(&payments, &pending); err != nil {
		return 0, 0, fmt.Errorf("count what was kept: %w", err)
	}
	return payments, pending, nil
}
