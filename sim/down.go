package sim

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/outboxlab/outboxlab/pg"
)

// PostgresDownError says PostgreSQL stopped under the simulation (killed,
// crashed, its machine gone). Every actor stops, the oracle is stale, and
// only restart-postgres goes on; `run` exits 1 with this one message.
type PostgresDownError struct{ Reason string }

func (e *PostgresDownError) Error() string {
	return "PostgreSQL stopped: " + e.Reason + " — restart-postgres starts it again"
}

// ErrPostgresDown matches every PostgresDownError with errors.Is.
var ErrPostgresDown = errors.New("PostgreSQL stopped")

// Is makes errors.Is(err, ErrPostgresDown) true.
func (e *PostgresDownError) Is(target error) bool { return target == ErrPostgresDown }

// PostgresDown is the reason PostgreSQL is down, or "" while it runs.
func (s *Sim) PostgresDown() string {
	s.op.Lock()
	defer s.op.Unlock()
	return s.pgDown
}

// downErr is the error every operation returns while PostgreSQL is down.
func (s *Sim) downErr() error {
	if s.pgDown == "" {
		return nil
	}
	return &PostgresDownError{Reason: s.pgDown}
}

// checkDown looks at the server after an error nobody expected: when
// PostgreSQL itself is gone, that — not the symptom (a relay's failed
// connect, a query the oracle could not run) — is what the learner is told,
// once, on the timeline.
func (s *Sim) checkDown(ctx context.Context, cause error) error {
	if cause == nil || s.pgDown != "" {
		return cause
	}
	var script *ScriptError
	if errors.As(cause, &script) || errors.Is(cause, ErrPostgresDown) || ctx.Err() != nil {
		return cause
	}
	why := s.srv.Alive(ctx)
	if why == nil || !errors.Is(why, pg.ErrDown) {
		return cause
	}
	s.pgDown = strings.TrimPrefix(why.Error(), "PostgreSQL stopped: ")
	s.version++
	s.record(Entry{Actor: "postgres", Kind: "down", Explain: fmt.Sprintf(
		"PostgreSQL stopped: %s. Every actor stops and the guarantees wait for it; restart-postgres starts it again, and whatever was committed will be there", oneLine(s.pgDown))})
	return s.downErr()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
