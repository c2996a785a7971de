package engine

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The engine's one call path for its SQL. Every named statement runs through
// these helpers: an actor's are noted for its next checkpoint (the timeline
// shows the statement's name), and whatever the driver answers comes back
// through stmtError, mapped to the package's sentinels and prefixed with the
// statement's name. A caller adds what it was doing, never the mapping.
//
// The actor's methods note the statement before it runs; the functions
// without an actor (execOn, queryRowOn, queryOn) serve the operations no actor
// runs (a requeue, retention, a metrics snapshot, a payment's status) and the
// CDC relay's housekeeping that a timeline does not show.

// stmtError is the one place a statement's error becomes the engine's: the
// driver's error mapped by mapDBError, under the statement's name. nil stays
// nil.
func stmtError(st *Statement, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", st.Name, mapDBError(err))
}

// exec runs st on c and notes it.
func (a *actor) exec(ctx context.Context, c *pgx.Conn, st *Statement, args ...any) (pgconn.CommandTag, error) {
	a.note(st)
	return execOn(ctx, c, st, args...)
}

// queryRow runs st on c, which returns at most one row, and notes it. The
// row's Scan reports no row as ErrNotFound.
func (a *actor) queryRow(ctx context.Context, c *pgx.Conn, st *Statement, args ...any) row {
	a.note(st)
	return queryRowOn(ctx, c, st, args...)
}

// query runs st on c, hands its rows to read and notes it.
func (a *actor) query(ctx context.Context, c *pgx.Conn, st *Statement, read func(pgx.Rows) error, args ...any) error {
	a.note(st)
	return queryOn(ctx, c, st, read, args...)
}

// execOn runs st on c with no actor to note it.
func execOn(ctx context.Context, c *pgx.Conn, st *Statement, args ...any) (pgconn.CommandTag, error) {
	tag, err := c.Exec(ctx, st.SQL, args...)
	return tag, stmtError(st, err)
}

// queryRowOn runs st on c with no actor to note it.
func queryRowOn(ctx context.Context, c *pgx.Conn, st *Statement, args ...any) row {
	return row{st: st, row: c.QueryRow(ctx, st.SQL, args...)}
}

// queryOn runs st on c with no actor to note it, and hands its rows to read.
// An error from the query, from read or from the rows is st's; the rows are
// closed when it returns.
func queryOn(ctx context.Context, c *pgx.Conn, st *Statement, read func(pgx.Rows) error, args ...any) error {
	rows, err := c.Query(ctx, st.SQL, args...)
	if err != nil {
		return stmtError(st, err)
	}
	return readRows(st, rows, read)
}

// readRows hands rows to read, closes them and returns st's error, if any:
// read's first, else the rows'.
func readRows(st *Statement, rows pgx.Rows, read func(pgx.Rows) error) error {
	defer rows.Close()
	if err := read(rows); err != nil {
		return stmtError(st, err)
	}
	rows.Close()
	return stmtError(st, rows.Err())
}

// row is one statement's pgx.Row: its Scan returns the statement's error
// the engine's way.
type row struct {
	st  *Statement
	row pgx.Row
}

// Scan reads the row into dest; no row is an error wrapping ErrNotFound.
func (r row) Scan(dest ...any) error {
	return stmtError(r.st, r.row.Scan(dest...))
}

// collectInto is a read for query that sets *dst to the rows, each made by
// to, as pgx.CollectRows makes them.
func collectInto[T any](dst *[]T, to pgx.RowToFunc[T]) func(pgx.Rows) error {
	return func(rows pgx.Rows) (err error) {
		*dst, err = pgx.CollectRows(rows, to)
		return err
	}
}

// A batch sends its statements in one round trip and its replies are read
// later, in order: the caller notes the statements when it reads the
// replies (a claim sent ahead shows in the checkpoint of the step that reads
// it), and reads each reply through batchExec or batchQuery.

// batchExec reads the reply of st, the next statement of the batch br.
func batchExec(br pgx.BatchResults, st *Statement) (pgconn.CommandTag, error) {
	tag, err := br.Exec()
	return tag, stmtError(st, err)
}

// batchQuery reads the rows of st, the next statement of the batch br, with
// read, as queryOn does.
func batchQuery(br pgx.BatchResults, st *Statement, read func(pgx.Rows) error) error {
	rows, err := br.Query()
	if err != nil {
		return stmtError(st, err)
	}
	return readRows(st, rows, read)
}

// closeBatch closes br; an error left in it (a reply not read, the
// connection lost) is last's, the statement whose reply ends the batch.
func closeBatch(br pgx.BatchResults, last *Statement) error {
	return stmtError(last, br.Close())
}
