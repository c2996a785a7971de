package workshop

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/outboxlab/outboxlab/pg"
)

// A learner's connection budget is enforced by PostgreSQL: their simulator
// connects as a role of their own, made when they connect and dropped when
// they leave, with CONNECTION LIMIT perLearner(). The limit of a database
// or a role binds no superuser, so the role is not one: it may create
// databases (its own, cloned from the shared template, see
// pg.ShareTemplate) and replicate (the CDC lesson's slot), nothing more.
// Its N+1th connection is refused ("too many connections for role",
// SQLSTATE 53300) while every other learner's go on.

//go:embed sql/end_role_sessions.sql
var sqlEndRoleSessions string

// OverBudget reports whether err is a learner's connection refused
// because their budget is spent.
func OverBudget(err error) bool { return pg.TooManyConnections(err) }

// learnerScramIterations is how many rounds of PBKDF2 a learner's
// connection costs the room. A learner's simulator opens about ten as it
// starts, and at PostgreSQL's 4096 a class joining at once spent a tenth
// of the room's CPU there. The password is 144 random bits, known only to
// the room and dropped with the role: rounds that slow a guess protect
// nothing here.
const learnerScramIterations = 1

// learnerRole makes (or, left by a room that was killed, updates) the
// learner's role with a new password and the budget as its connection
// limit, gives it spare databases (spares.go) and returns the server as
// that role sees it.
func (r *Room) learnerRole(ctx context.Context, ns pg.Namespace) (*pg.Server, error) {
	role := ns.Prefix()
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("workshop: password for %s: %w", role, err)
	}
	password := base64.RawURLEncoding.EncodeToString(b[:])
	secret, err := pg.ScramSecret(password, learnerScramIterations)
	if err != nil {
		return nil, fmt.Errorf("workshop: password for %s: %w", role, err)
	}
	conn, err := pgx.Connect(ctx, r.srv.DatabaseURL("postgres"))
	if err != nil {
		return nil, fmt.Errorf("workshop: role %s: connect: %w", role, err)
	}
	defer conn.Close(context.Background())
	id := pgx.Identifier{role}.Sanitize()
	// PASSWORD takes no parameter: the secret is base64 and SCRAM's
	// punctuation, quoted as a literal with nothing in it to escape.
	attrs := " LOGIN NOSUPERUSER CREATEDB REPLICATION CONNECTION LIMIT " + strconv.Itoa(perLearner()) + " PASSWORD '" + secret + "'"
	_, err = conn.Exec(ctx, "CREATE ROLE "+id+attrs+" IN ROLE "+pgx.Identifier{pg.TemplateUsers}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42710" { // duplicate_object
		if _, err = conn.Exec(ctx, "ALTER ROLE "+id+attrs); err == nil {
			_, err = conn.Exec(ctx, "GRANT "+pgx.Identifier{pg.TemplateUsers}.Sanitize()+" TO "+id)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("workshop: role %s: %w", role, err)
	}
	if err := r.takeSpares(ctx, conn, ns, role); err != nil {
		return nil, err
	}
	return r.srv.As(role, password), nil
}

// dropLearnerRole ends the role's sessions and drops it; its databases
// are dropped first (a role that owns one cannot be dropped).
func (r *Room) dropLearnerRole(ctx context.Context, role string) error {
	conn, err := pgx.Connect(ctx, r.srv.DatabaseURL("postgres"))
	if err != nil {
		return fmt.Errorf("workshop: drop role %s: connect: %w", role, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sqlEndRoleSessions, role); err != nil {
		return fmt.Errorf("workshop: drop role %s: %w", role, err)
	}
	if _, err := conn.Exec(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{role}.Sanitize()); err != nil {
		return fmt.Errorf("workshop: drop role %s: %w", role, err)
	}
	return nil
}
