package pg

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/outboxlab/outboxlab/pg/slotname"
)

// Logical replication (the CDC relay, engine/relay_cdc.go) needs the server
// started with wal_level = logical and room for slots and WAL senders. They
// are server start parameters, so they are passed on pg_ctl's command line at
// every start (launch, Restart) rather than written at initdb: a data
// directory initialised by an earlier outboxlab, or a system cluster found
// as the fallback, gets them on its next start all the same.
//
// Slots: every test database and simulator pipeline may hold one, and chaos
// runs workers in parallel; a slot costs only shared memory when unused.
var logicalSettings = []struct{ name, value string }{
	{"wal_level", "logical"},
	{"max_replication_slots", "64"},
	{"max_wal_senders", "64"},
}

// startOptions is pg_ctl's -o: the port and the logical replication
// settings, except one Options.Settings sets otherwise (a test of a server
// without logical decoding).
func (s *Server) startOptions(port int) string {
	var b strings.Builder
	b.WriteString("-p " + strconv.Itoa(port))
	for _, ls := range logicalSettings {
		if _, set := s.settings[ls.name]; set {
			continue
		}
		fmt.Fprintf(&b, " -c %s=%s", ls.name, ls.value)
	}
	return b.String()
}

const (
	// A replication slot holds WAL for as long as it exists, whether or not
	// anyone reads it, and DROP DATABASE refuses a database that has one: a
	// slot's database ending must end the slot. Its walsender is ended first
	// (a slot in use cannot be dropped). Only outboxlab's slots
	// (slotname.Ours, $1 its prefix): the others are the server owner's.
	sqlEndSlotSenders = `SELECT count(pg_terminate_backend(active_pid)) FROM pg_replication_slots WHERE ` + slotname.Ours + ` AND database = $2 AND active_pid IS NOT NULL`
	sqlDropSlots      = `SELECT count(pg_drop_replication_slot(slot_name)) FROM pg_replication_slots WHERE ` + slotname.Ours + ` AND database = $2 AND NOT active`
	sqlSlotsLeft      = `SELECT count(*) FROM pg_replication_slots WHERE ` + slotname.Ours + ` AND database = $2`
	// At boot of a server of our own nothing of ours is connected yet:
	// every slot of ours in the cluster was left by a run that was killed
	// before it could drop it. A slot someone else made stays.
	sqlDropAllSlots = `SELECT count(pg_drop_replication_slot(slot_name)) FROM pg_replication_slots WHERE ` + slotname.Ours + ` AND NOT active`
)

// Querier is a connection or a pool: what DropSlots runs its statements on,
// and what AliveVia asks through.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// DropSlots drops outboxlab's replication slots of database db (those named
// with slotname.Prefix), ending the sessions that stream from them (conn is
// not one of them); any other slot, and its session, is left alone. A walsender takes a
// moment to exit after it is told to, so the drop is retried for a while.
// The simulator calls it when it empties or closes a database.
func DropSlots(ctx context.Context, conn Querier, db string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := conn.Exec(ctx, sqlEndSlotSenders, slotname.Prefix, db); err != nil {
			return fmt.Errorf("end replication of %s: %w", db, err)
		}
		if _, err := conn.Exec(ctx, sqlDropSlots, slotname.Prefix, db); err != nil {
			// A slot that became active between the two statements: the
			// next round ends its sender again.
			if time.Now().After(deadline) {
				return fmt.Errorf("drop replication slots of %s: %w", db, err)
			}
		}
		var left int
		if err := conn.QueryRow(ctx, sqlSlotsLeft, slotname.Prefix, db).Scan(&left); err != nil {
			return fmt.Errorf("count replication slots of %s: %w", db, err)
		}
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("drop replication slots of %s: %d still in use after 10s", db, left)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("drop replication slots of %s: %w", db, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// dropOrphanSlots drops the slots of ours a killed run left in a cluster that has
// just been started by this process (no session can be using them).
func (s *Server) dropOrphanSlots(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.DatabaseURL("postgres"))
	if err != nil {
		return fmt.Errorf("drop orphan replication slots: connect: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sqlDropAllSlots, slotname.Prefix); err != nil {
		return fmt.Errorf("drop orphan replication slots: %w", err)
	}
	return nil
}
