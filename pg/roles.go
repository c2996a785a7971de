package pg

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TemplateUsers is the role whose members may clone the template and use
// every table of the clone, without being superusers: a workshop's
// learners, whose connection limit PostgreSQL enforces only on roles that
// are not (see ShareTemplate).
const TemplateUsers = "outboxlab_template_users"

//go:embed sql/share_template.sql
var sqlShareTemplate string

// ShareTemplate lets members of TemplateUsers (made here when missing) do
// what the simulator does with a database: CreateDatabase clones the
// template (a non-superuser with CREATEDB may clone only a database marked
// a template), and the clone's tables are theirs: the template's objects
// are given to TemplateUsers (sql/share_template.sql), and a clone copies
// ownership. The superuser's own use of the template is unchanged.
func (s *Server) ShareTemplate(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.DatabaseURL("postgres"))
	if err != nil {
		return fmt.Errorf("share the template: connect: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE ROLE "+pgx.Identifier{TemplateUsers}.Sanitize()+" NOLOGIN")
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42710" { // duplicate_object: an earlier room's
		err = nil
	}
	if err != nil {
		return fmt.Errorf("share the template: %w", err)
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{templateDB}.Sanitize()+" IS_TEMPLATE true"); err != nil {
		return fmt.Errorf("share the template: %w", err)
	}
	tconn, err := pgx.Connect(ctx, s.DatabaseURL(templateDB))
	if err != nil {
		return fmt.Errorf("share the template: connect: %w", err)
	}
	defer tconn.Close(ctx)
	if _, err := tconn.Exec(ctx, sqlShareTemplate); err != nil {
		return fmt.Errorf("share the template: %w", err)
	}
	return nil
}

// As is the same server connected to as another role: an external server
// to whoever uses it (never stopped nor restarted by them, nothing
// migrated: the owner's boot did), every URL it gives carrying the role.
func (s *Server) As(role, password string) *Server {
	u, _ := url.Parse(s.DatabaseURL(appDatabase))
	u.User = url.UserPassword(role, password)
	return &Server{external: u.String(), Port: s.Port, DataDir: s.DataDir, Binaries: s.Binaries, Account: "external server"}
}

// TooManyConnections reports whether err is PostgreSQL refusing a
// connection past a limit: max_connections, or a role's or a database's
// CONNECTION LIMIT (SQLSTATE 53300). The server answers; it is not down.
func TooManyConnections(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "53300"
}

// pgMessage is PostgreSQL's own words in err, without the driver's
// connection details (which hold the URL).
func pgMessage(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Message
	}
	return err.Error()
}
