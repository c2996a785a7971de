package sim

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/engine"
)

// observe watches leases as relays claim rows: a row leased to one worker
// while another worker's lease on it has not expired (and the row is not
// published) would be a double lease, the thing SKIP LOCKED and the lease
// condition exist to prevent (S9, S10). It is read from the table itself.
func (p *Pipeline) observe(ctx context.Context, ev engine.Event) {
	if ev.Checkpoint != engine.RelayClaimed || len(ev.MessageIDs) == 0 {
		return
	}
	rows, err := p.pool.Query(ctx, sqlLeases, ev.MessageIDs)
	if err != nil {
		return
	}
	type row struct {
		ID          uuid.UUID
		LockID      *uuid.UUID
		LockedUntil *time.Time
		PublishedAt *time.Time
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		return
	}
	now := p.sim.clock.Peek()
	for _, r := range got {
		if r.LockID == nil || r.LockedUntil == nil {
			continue
		}
		if prev, ok := p.leases[r.ID]; ok && prev.owner != *r.LockID && prev.until.After(now) && !p.published(r.ID) {
			p.doubles++
		}
		p.leases[r.ID] = lease{owner: *r.LockID, until: *r.LockedUntil}
	}
}

// published reports whether the row's earlier lease ended in a mark: then a
// new lease on it is a redelivery's concern, not a double lease.
func (p *Pipeline) published(id uuid.UUID) bool {
	var n int
	_ = p.pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox_messages WHERE id = $1 AND published_at IS NOT NULL`, id).Scan(&n)
	return n > 0
}

const sqlLeases = `SELECT id, lock_id, locked_until, published_at FROM outbox_messages WHERE id = ANY($1)`
