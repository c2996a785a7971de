package pg

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Namespace names the databases of one user of a server (the simulator, a
// run, serve's simulation, a chaos worker, a workshop learner, the
// deployment): <prefix>_<kind>, one per pipeline kind ("outbox", "naive"),
// and says whether they are that user's own, to drop when it is done. It
// is the one place a database name is put together.
type Namespace struct {
	prefix string
	own    bool
}

// Sharing says on which servers a user's names could be another's, so
// that it takes databases of its own there.
type Sharing int

const (
	// BesideOwner: on a server another live outboxlab owns (SharedWith),
	// whose databases of the prefix are that outboxlab's to reset. On a
	// --database-url server the names are kept (the simulator's tui_*,
	// run's run_*: the user's server, the user's databases).
	BesideOwner Sharing = iota
	// NotBootedHere: on any server this process did not boot, another
	// outboxlab's or a --database-url one (chaos's and serve's
	// simulations, which other runs on that server may be using).
	NotBootedHere
)

// Namespace decides whose prefix's databases on s are. Where the names
// could be another's (sharing), they are this process's own: the prefix
// gets its pid (chaos4242_outbox), so neither process resets the other's,
// and Drop drops them when it is done. Elsewhere the prefix is kept, and
// so are the databases.
func (s *Server) Namespace(prefix string, sharing Sharing) Namespace {
	another := s.SharedWith != ""
	if sharing == NotBootedHere {
		another = !s.BootedHere()
	}
	if another {
		return OwnNamespace(fmt.Sprintf("%s%d", prefix, os.Getpid()))
	}
	return NamespaceOf(prefix)
}

// BootedHere reports whether this process booted the server: neither
// another outboxlab's (SharedWith) nor a --database-url one.
func (s *Server) BootedHere() bool { return s.SharedWith == "" && !s.External() }

// NamespaceOf is prefix's databases, kept when their user is done (the
// simulator's tui_*, which its next session resets; the deployment's
// live_*, which a restart keeps).
func NamespaceOf(prefix string) Namespace { return Namespace{prefix: prefix} }

// PipelineKinds are the kinds of database a namespace holds, one per
// pipeline: the outbox chain's and the naive dual write's.
func PipelineKinds() []string { return []string{"outbox", "naive"} }

// OwnNamespace is prefix's databases as their user's own, dropped when it
// is done (a workshop learner's, a chaos run's, a test's).
func OwnNamespace(prefix string) Namespace { return Namespace{prefix: prefix, own: true} }

// Prefix is what every database of the namespace starts with.
func (n Namespace) Prefix() string { return n.prefix }

// Database names the namespace's database of a kind.
func (n Namespace) Database(kind string) string { return n.prefix + "_" + kind }

// Sub is a namespace within this one, of the same owner: <prefix>_<name>
// (a chaos run's worker 0, chaos4242_0_outbox; its shrinking).
func (n Namespace) Sub(name string) Namespace {
	return Namespace{prefix: n.Database(name), own: n.own}
}

// Owned reports whether the databases are their user's to drop when done.
func (n Namespace) Owned() bool { return n.own }

// Drop drops the namespace's databases of the kinds given, when they are
// its user's own; a namespace that is not (tui_*, live_*) is left alone,
// and so is every other database, also one whose name starts with the
// prefix (ws_ana_2_outbox is not ws_ana's).
func (n Namespace) Drop(ctx context.Context, s *Server, kinds ...string) error {
	if !n.own {
		return nil
	}
	var errs []error
	for _, kind := range kinds {
		errs = append(errs, s.DropDatabase(ctx, n.Database(kind)))
	}
	return errors.Join(errs...)
}

// DropAll is Drop of every pipeline kind (PipelineKinds): a user that may
// have made either database drops both.
func (n Namespace) DropAll(ctx context.Context, s *Server) error {
	return n.Drop(ctx, s, PipelineKinds()...)
}
