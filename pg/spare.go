package pg

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Spare databases are clones of the template made before anyone asks for
// one, so that a database wanted in a hurry is a rename away. Cloning is
// the dearest step of a simulation's start (8 MB copied per database, and
// with fsync on, written through the WAL): a workshop makes its learners'
// databases while the room waits for its class, and a burst of learners
// joining at once then costs PostgreSQL a rename each.
//
// A spare carries a mark, a comment on the database naming the schema it
// was cloned at. The mark says "fresh": ResetDatabase finds a database
// with it needs nothing emptied, takes the mark off and is done. A spare
// of another build's schema is not this build's to take: Spares drops it.

//go:embed sql/spares.sql
var sqlSpares string

//go:embed sql/database_state.sql
var sqlDatabaseState string

// spareMark is the comment a spare carries: the schema it was cloned at.
func spareMark() string { return "outboxlab: a fresh clone of schema " + SchemaDigest() }

// MakeSpare clones the template as a spare database named name, on conn
// (a superuser's, to the "postgres" database).
func (s *Server) MakeSpare(ctx context.Context, conn *pgx.Conn, name string) error {
	id := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+id+" TEMPLATE "+pgx.Identifier{templateDB}.Sanitize()+s.createStrategy()); err != nil {
		return fmt.Errorf("spare database %s: %w", name, err)
	}
	// COMMENT takes no parameter; the mark is hex and words, nothing to
	// escape in a literal.
	if _, err := conn.Exec(ctx, "COMMENT ON DATABASE "+id+" IS '"+spareMark()+"'"); err != nil {
		return fmt.Errorf("spare database %s: mark: %w", name, err)
	}
	return nil
}

// Spares lists the spare databases whose names start with prefix and
// that this build can take, and drops those of another schema (or
// unmarked: a make cut short).
func (s *Server) Spares(ctx context.Context, conn *pgx.Conn, prefix string) ([]string, error) {
	rows, err := conn.Query(ctx, sqlSpares, prefix)
	if err != nil {
		return nil, fmt.Errorf("spare databases: %w", err)
	}
	type db struct{ name, mark string }
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (d db, err error) { return d, r.Scan(&d.name, &d.mark) })
	if err != nil {
		return nil, fmt.Errorf("spare databases: %w", err)
	}
	var keep []string
	for _, d := range all {
		if d.mark == spareMark() {
			keep = append(keep, d.name)
			continue
		}
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{d.name}.Sanitize()+" WITH (FORCE)"); err != nil {
			return nil, fmt.Errorf("spare database %s: drop: %w", d.name, err)
		}
	}
	return keep, nil
}

// ErrNameTaken is TakeSpare finding a database of the name already there.
var ErrNameTaken = errors.New("a database of that name exists")

// TakeSpare makes the spare database spare the database name, owned by
// owner, on conn (a superuser's, to the "postgres" database). It keeps
// its mark, so that the first ResetDatabase of name finds it fresh. With
// name taken it returns ErrNameTaken and the spare stays a spare.
func (s *Server) TakeSpare(ctx context.Context, conn *pgx.Conn, spare, name, owner string) error {
	id := pgx.Identifier{name}.Sanitize()
	_, err := conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{spare}.Sanitize()+" RENAME TO "+id)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
		return fmt.Errorf("spare database %s as %s: %w", spare, name, ErrNameTaken)
	}
	if err != nil {
		return fmt.Errorf("spare database %s as %s: %w", spare, name, err)
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+id+" OWNER TO "+pgx.Identifier{owner}.Sanitize()); err != nil {
		return fmt.Errorf("spare database %s: owner %s: %w", name, owner, err)
	}
	return nil
}
