package pg

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A role made with ScramSecret logs in with its password over SCRAM, at
// the iterations the secret names, and not with another password.
func TestScramSecretLogsIn(t *testing.T) {
	t.Parallel()
	srv := boot(t, Options{DataDir: seededDataDir(t)})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.DatabaseURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	secret, err := ScramSecret("a-random-password", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE ROLE scrammed LOGIN PASSWORD '`+secret+`'`); err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := conn.QueryRow(ctx, `SELECT rolpassword FROM pg_authid WHERE rolname = 'scrammed'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != secret || !strings.HasPrefix(stored, "SCRAM-SHA-256$1:") {
		t.Errorf("stored secret %q, want the one given, %q", stored, secret)
	}
	c, err := pgx.Connect(ctx, srv.As("scrammed", "a-random-password").DatabaseURL("postgres"))
	if err != nil {
		t.Fatalf("login with the password: %v", err)
	}
	c.Close(ctx)
	if c, err := pgx.Connect(ctx, srv.As("scrammed", "another").DatabaseURL("postgres")); err == nil {
		c.Close(ctx)
		t.Error("login with another password succeeded")
	}
}
