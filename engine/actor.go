package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"go.opentelemetry.io/otel/trace"
)

// Connect opens a new connection for an actor. Actors call it lazily and
// again after a crash or a lost connection, so it must return a fresh one.
type Connect func(ctx context.Context) (*pgx.Conn, error)

// ConnectURL returns a Connect that dials url each time.
func ConnectURL(url string) Connect {
	return func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, url) }
}

// actor is what every engine actor shares: its name, clock and hook, its own
// connection(s), and the statements run since its previous checkpoint.
type actor struct {
	name    string
	clock   Clock
	hook    Hook
	connect Connect
	db      *pgx.Conn
	// aux is a second connection an actor may own (a pipelined relay marks
	// on it while its claims run on db); it lives and dies with db.
	aux *pgx.Conn
	// repl is the CDC relay's replication connection (relay_cdc.go); it
	// lives and dies with db too.
	repl *pgconn.PgConn
	ran  []*Statement
	last *Statement
	// tr traces the actor's work (tracing.go); spans are its spans open
	// now, to which checkpoints are added as events.
	tr    tracer
	spans []trace.Span
	// dbName is the database the actor's last connection opened, for the
	// spans' db.namespace.
	dbName string
}

func newActor(name string, clock Clock, hook Hook, connect Connect) actor {
	return actor{name: name, clock: clockOrSystem(clock), hook: hook, connect: connect}
}

// conn returns the actor's connection, opening a new one when it has none or
// the old one died (a crash, a server restart).
func (a *actor) conn(ctx context.Context) (*pgx.Conn, error) {
	return a.open(ctx, &a.db)
}

// auxConn returns the actor's second connection, opened like conn.
func (a *actor) auxConn(ctx context.Context) (*pgx.Conn, error) {
	return a.open(ctx, &a.aux)
}

func (a *actor) open(ctx context.Context, slot **pgx.Conn) (*pgx.Conn, error) {
	if *slot != nil && !(*slot).IsClosed() {
		return *slot, nil
	}
	if a.connect == nil {
		return nil, fmt.Errorf("%s: no Connect configured", a.name)
	}
	c, err := a.connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: connect: %w", a.name, mapDBError(err))
	}
	registerTypes(c)
	*slot = c
	a.dbName = c.Config().Database
	return c, nil
}

// Close closes the actor's connections cleanly (a graceful shutdown).
func (a *actor) Close(ctx context.Context) error {
	var err error
	for _, c := range []**pgx.Conn{&a.db, &a.aux} {
		if *c != nil {
			err = errors.Join(err, (*c).Close(ctx))
			*c = nil
		}
	}
	if a.repl != nil {
		err = errors.Join(err, a.repl.Close(ctx))
		a.repl = nil
	}
	return err
}

// note records that st ran, for the next checkpoint's Event.
func (a *actor) note(st *Statement) {
	a.ran = append(a.ran, st)
	a.last = st
}

// checkpoint reports ev to the hook. The returned error is the hook's, as is.
func (a *actor) checkpoint(ctx context.Context, ev Event) error {
	ev.Actor = a.name
	if ev.Statement == nil {
		ev.Statement = a.last
	}
	ev.Ran = a.ran
	a.ran, a.last = nil, nil
	a.traceEvent(ev)
	if a.hook == nil {
		return nil
	}
	return a.hook(ctx, ev)
}

// die is a process death as PostgreSQL sees it: the socket closes with no
// COMMIT and no Terminate message, so the server rolls back whatever was open.
func (a *actor) die() {
	for _, c := range []**pgx.Conn{&a.db, &a.aux} {
		if *c == nil {
			continue
		}
		if nc := (*c).PgConn().Conn(); nc != nil {
			_ = nc.Close()
		}
		_ = (*c).Close(context.Background())
		*c = nil
	}
	if a.repl != nil {
		_ = a.repl.Conn().Close()
		_ = a.repl.Close(context.Background())
		a.repl = nil
	}
}

// crashed kills the actor and returns the error it reports.
func (a *actor) crashed(at Checkpoint, hookErr error) error {
	a.die()
	return fmt.Errorf("%s died at %s: %w", a.name, at, hookErr)
}

// stopAt handles a hook error at a checkpoint that does not precede a COMMIT:
// ErrCrash kills the actor, ErrFailCommit and ErrLoseCommitReply do not
// apply there and are ignored, anything else stops the operation (rolling
// back an open transaction).
func (a *actor) stopAt(ctx context.Context, at Checkpoint, hookErr error) error {
	switch {
	case hookErr == nil, errors.Is(hookErr, ErrFailCommit), errors.Is(hookErr, ErrLoseCommitReply):
		return nil
	case errors.Is(hookErr, ErrCrash):
		return a.crashed(at, hookErr)
	default:
		a.rollback(ctx)
		return fmt.Errorf("%s stopped at %s: %w", a.name, at, hookErr)
	}
}

var (
	stmtBegin    = &Statement{Name: "begin", SQL: "BEGIN"}
	stmtCommit   = &Statement{Name: "commit", SQL: "COMMIT"}
	stmtRollback = &Statement{Name: "rollback", SQL: "ROLLBACK"}
)

func (a *actor) begin(ctx context.Context, c *pgx.Conn) error {
	_, err := a.exec(ctx, c, stmtBegin)
	return err
}

// rollback ends an open transaction, if any; a broken connection is dropped.
func (a *actor) rollback(ctx context.Context) {
	if a.db == nil || a.db.IsClosed() {
		return
	}
	if a.db.PgConn().TxStatus() == 'I' {
		return
	}
	if _, err := a.exec(context.WithoutCancel(ctx), a.db, stmtRollback); err != nil {
		a.die()
	}
}

// finish ends the open transaction as the hook's answer at the checkpoint
// before COMMIT (at) says: commit, roll back (ErrFailCommit), commit with the
// reply lost (ErrLoseCommitReply), or die (ErrCrash).
func (a *actor) finish(ctx context.Context, at Checkpoint, hookErr error) error {
	switch {
	case hookErr == nil:
		_, err := a.exec(ctx, a.db, stmtCommit)
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrConnection) {
			// The COMMIT may have reached the server before the connection died.
			a.die()
			return fmt.Errorf("%w: %w", ErrAmbiguousCommit, err)
		}
		a.rollback(ctx)
		return err
	case errors.Is(hookErr, ErrCrash):
		return a.crashed(at, hookErr)
	case errors.Is(hookErr, ErrFailCommit):
		a.rollback(ctx)
		return fmt.Errorf("%s at %s: %w", a.name, at, ErrCommitFailed)
	case errors.Is(hookErr, ErrLoseCommitReply):
		a.commitAndDrop()
		return fmt.Errorf("%s at %s: connection dropped during COMMIT: %w", a.name, at, ErrAmbiguousCommit)
	default:
		a.rollback(ctx)
		return fmt.Errorf("%s stopped at %s: %w", a.name, at, hookErr)
	}
}

// commitAndDrop writes COMMIT on the wire and closes the socket before the
// reply can be read. The COMMIT is ahead of the FIN in the byte stream, so
// the server executes it; the client never learns the outcome.
func (a *actor) commitAndDrop() {
	a.note(stmtCommit)
	pc := a.db.PgConn()
	fe := pc.Frontend()
	fe.Send(&pgproto3.Query{String: stmtCommit.SQL})
	_ = fe.Flush()
	a.die()
}
