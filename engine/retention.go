package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// PruneOptions says what retention removes (S23). A zero horizon skips that table.
type PruneOptions struct {
	// OutboxOlderThan removes published outbox rows published before Now minus
	// it (the audit period). Unpublished and dead-lettered rows are never pruned.
	OutboxOlderThan time.Duration
	// InboxOlderThan removes inbox markers processed before Now minus it. It
	// must exceed the longest redelivery window: a marker pruned earlier lets
	// an old redelivery through as new.
	InboxOlderThan time.Duration
	Now            time.Time
	BatchSize      int // rows per DELETE; default 1000
}

// PruneResult counts what Prune deleted.
type PruneResult struct {
	Outbox, Inbox int64
}

// Prune deletes in batches of BatchSize, each its own short statement, until
// nothing older than the horizons is left or ctx ends.
func Prune(ctx context.Context, conn *pgx.Conn, opts PruneOptions) (PruneResult, error) {
	var res PruneResult
	if opts.BatchSize <= 0 {
		opts.BatchSize = 1000
	}
	var err error
	if opts.OutboxOlderThan > 0 {
		if res.Outbox, err = pruneLoop(ctx, conn, stmtPruneOutbox, opts.Now.Add(-opts.OutboxOlderThan), opts.BatchSize); err != nil {
			return res, err
		}
	}
	if opts.InboxOlderThan > 0 {
		if res.Inbox, err = pruneLoop(ctx, conn, stmtPruneInbox, opts.Now.Add(-opts.InboxOlderThan), opts.BatchSize); err != nil {
			return res, err
		}
	}
	return res, nil
}

func pruneLoop(ctx context.Context, conn *pgx.Conn, st *Statement, before time.Time, batch int) (int64, error) {
	var total int64
	for {
		tag, err := execOn(ctx, conn, st, before, batch)
		if err != nil {
			return total, fmt.Errorf("prune: %w", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < int64(batch) {
			return total, nil
		}
	}
}
