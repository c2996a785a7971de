package deploy

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

var (
	//go:embed sql/identity_table.sql
	sqlIdentityTable string
	//go:embed sql/identity.sql
	sqlIdentity string
)

// ID is a deployment's identity, kept in its database.
type ID struct {
	// ID is random, made once: the owner a stream's mark names.
	ID string
	// Pipeline names the stream and its subjects (jetstream.Config.Pipeline).
	Pipeline string
}

// Identity is the deployment's identity, kept in its database: a random id
// made the first time a deployment runs on it and read at every start
// after, so that the deployment names its stream (and marks it as its own)
// the same way across restarts, and no two deployments' databases name
// the same stream by chance. pipeline names the pipeline of an identity
// made now from its id; made says it was. The caller holds the database's
// claim (Claim).
func Identity(ctx context.Context, databaseURL string, now time.Time, pipeline func(id string) string) (id ID, made bool, err error) {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return id, false, fmt.Errorf("the deployment's identity: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sqlIdentityTable); err != nil {
		return id, false, fmt.Errorf("the deployment's identity: %w", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	fresh := hex.EncodeToString(b[:])
	if err := conn.QueryRow(ctx, sqlIdentity, fresh, pipeline(fresh), now).Scan(&id.ID, &id.Pipeline, &made); err != nil {
		return id, false, fmt.Errorf("the deployment's identity: %w", err)
	}
	return id, made, nil
}
