package sim

import (
	"context"
	"errors"
	"strings"

	"github.com/outboxlab/outboxlab/pg"
)

// PostgresDownError says PostgreSQL stopped under the simulation (killed,
// crashed, its machine gone, an external server that does not answer). Every
// actor stops and the oracle is stale until it is back; `run` exits 1 with
// this one message.
type PostgresDownError struct {
	Reason   string // what happened, e.g. "postmaster pid 4242 is gone (killed, or crashed)"
	Why      Text   // Reason as a catalog sentence, for a screen in the learner's language
	External bool   // a --database-url server: outboxlab cannot start it, only wait for it
}

// Say is the error as a catalog sentence: what a screen shows. The scene
// command is named as the screen's key (R), which the screen says itself.
func (e *PostgresDownError) Say() Text {
	if e.External {
		return text("PostgreSQL does not answer: %s — outboxlab goes on when it answers again", e.Why)
	}
	return text("PostgreSQL stopped: %s", e.Why)
}

func (e *PostgresDownError) Error() string {
	if e.External {
		return "PostgreSQL does not answer: " + e.Reason + " — outboxlab goes on when it answers again"
	}
	return "PostgreSQL stopped: " + e.Reason + " — restart-postgres starts it again"
}

// ErrPostgresDown matches every PostgresDownError with errors.Is.
var ErrPostgresDown = errors.New("PostgreSQL stopped")

// Is makes errors.Is(err, ErrPostgresDown) true.
func (e *PostgresDownError) Is(target error) bool { return target == ErrPostgresDown }

// downErr is the error every operation returns while PostgreSQL is down. An
// external server is asked again each time: outboxlab cannot restart it,
// so its coming back is how the simulation goes on.
func (s *Sim) downErr(ctx context.Context) error {
	if s.pgDown == "" {
		return nil
	}
	if s.srv.External() && s.srv.Alive(ctx) == nil {
		s.back(text("PostgreSQL answers again: whatever was committed is there"))
		return nil
	}
	return &PostgresDownError{Reason: s.pgDown, Why: s.pgDownWhy, External: s.srv.External()}
}

// back records that the server is up again and lets every actor go on.
func (s *Sim) back(why Text) {
	s.pgDown = ""
	for _, p := range s.pipes {
		p.pool.Reset()
	}
	for _, d := range s.dbs {
		d.forget()
	}
	s.version++
	s.record(Entry{Actor: "postgres", Kind: KindRestart}.with(why))
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
	why := s.alive(ctx, cause)
	if why == nil || !errors.Is(why, pg.ErrDown) {
		return cause
	}
	reason := why.Error()
	for _, prefix := range []string{"PostgreSQL stopped: ", "PostgreSQL does not answer: "} {
		reason = strings.TrimPrefix(reason, prefix)
	}
	why2 := downReason(why)
	s.pgDown, s.pgDownWhy = reason, why2
	s.version++
	err := &PostgresDownError{Reason: reason, Why: why2, External: s.srv.External()}
	said := text("PostgreSQL stopped: %s — restart-postgres starts it again. Every actor stops and the guarantees wait for it; whatever was committed will be there", why2)
	if err.External {
		said = text("PostgreSQL does not answer: %s — outboxlab goes on when it answers again. Every actor stops and the guarantees wait for it; whatever was committed will be there", why2)
	}
	s.record(Entry{Actor: "postgres", Kind: KindDown}.with(said))
	return err
}

// alive asks the server whether it answers after cause. It asks through the
// simulator's own pool, so no backend starts for the question: in a chaos
// run an actor fails on purpose every other schedule, and a question on a
// new connection each time would cost a backend each. A connection refused
// because every one allowed is taken (a learner's budget) is asked about
// on a new connection: meeting that refusal is how Alive says so.
func (s *Sim) alive(ctx context.Context, cause error) error {
	if !pg.TooManyConnections(cause) {
		for _, kind := range s.settings.Pipelines() {
			if d := s.dbs[kind]; d != nil {
				return s.srv.AliveVia(ctx, d.pool)
			}
		}
	}
	return s.srv.Alive(ctx)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// downReason is pg's reason as a catalog sentence, on one line; the server's
// log lines after it are PostgreSQL's own words and stay as they are.
func downReason(why error) Text {
	var r interface {
		Reason() (format string, args []any, log string)
	}
	if !errors.As(why, &r) {
		return Text{Key: "%s", Args: []any{oneLine(why.Error())}}
	}
	format, args, log := r.Reason()
	flat := make([]any, len(args))
	for i, a := range args {
		flat[i] = a
		if e, ok := a.(error); ok {
			flat[i] = oneLine(e.Error())
		}
	}
	said := Text{Key: format, Args: flat}
	if log != "" {
		said = text("%s; last log lines: %s", said, oneLine(log))
	}
	return said
}
