package workshop

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/pg"
)

//go:embed sql/leftover_learners.sql
var sqlLeftoverLearners string

// dropLeftovers drops what a room killed before its learners' cleanup
// left on this server: each learner role's databases and the role. A
// room starts with none connected, so every one found is a leftover.
func (r *Room) dropLeftovers(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, r.srv.DatabaseURL("postgres"))
	if err != nil {
		return fmt.Errorf("workshop: leftovers: connect: %w", err)
	}
	rows, err := conn.Query(ctx, sqlLeftoverLearners, pg.TemplateUsers)
	var roles []string
	if err == nil {
		roles, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	conn.Close(context.Background())
	if err != nil {
		return fmt.Errorf("workshop: leftovers: %w", err)
	}
	for _, role := range roles {
		if err := pg.OwnNamespace(role).DropAll(ctx, r.srv); err != nil {
			return fmt.Errorf("workshop: leftovers of %s: %w", role, err)
		}
		if err := r.dropLearnerRole(ctx, role); err != nil {
			return err
		}
	}
	return nil
}
