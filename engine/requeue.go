package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Requeue is the maintenance operation for a dead-lettered message (S15): it
// clears dead_lettered_at, schedules the row for now, restarts its attempts
// and keeps its id, so consumers that already saw it still deduplicate it.
// It returns an error wrapping ErrNotFound when id is not dead-lettered.
func Requeue(ctx context.Context, conn *pgx.Conn, id uuid.UUID, now time.Time) error {
	tag, err := execOn(ctx, conn, stmtRequeue, id, now)
	if err != nil {
		return fmt.Errorf("requeue %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("requeue %s: no dead-lettered message with that id: %w", id, ErrNotFound)
	}
	return nil
}
