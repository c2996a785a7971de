package sim

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// PostgresDownError says PostgreSQL stopped under the simulation (killed,
// crashed, its machine gone). Every actor stops, the oracle is stale, and
// only restart-postgres goes on; `run` exits 1 with this one message.
type PostgresDownError struct{ Reason string }

func (e *PostgresDownError) Error() string {
	return "PostgreSQL stopped (" + e.Reason + "): restart-postgres starts it again"
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
	why := s.alive(ctx)
	if why == nil {
		return cause
	}
	s.pgDown = why.Error()
	s.version++
	s.record(Entry{Actor: "postgres", Kind: "down", Explain: fmt.Sprintf(
		"PostgreSQL stopped (%s): every actor stops and the guarantees wait for it; restart-postgres starts it again, and whatever was committed will be there", s.pgDown)})
	return s.downErr()
}

// alive asks the server for an answer, briefly: nil when it gives one.
func (s *Sim) alive(ctx context.Context) error {
	for _, p := range s.pipes {
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err := p.pool.Ping(pctx)
		cancel()
		if err != nil {
			return fmt.Errorf("%s database: %w", p.db, err)
		}
	}
	return nil
}
