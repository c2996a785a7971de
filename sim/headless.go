package sim

import (
	"context"
	"errors"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
)

// Headless is a scene to run with no screen, as `outboxlab run` and
// `outboxlab story` do: found by name, on a server it boots.
type Headless struct {
	Scene     string // the scene's name
	ScenesDir string // also load the scene files in this directory
	Mode      string // "" runs the scene's
	Variant   string
	Seed      uint64 // 0 runs the scene's
	PG        pg.Options
	// DBPrefix names the run's databases (the command: run_outbox); on a
	// server another outboxlab owns, the process id is added and the
	// databases are dropped at the end.
	DBPrefix string
	// Check, when set, refuses settings the caller cannot use, before
	// anything boots.
	Check   func(scenes.Settings) error
	OnEntry func(Entry)
}

// RunHeadless checks the scene and the options before anything boots, boots
// PostgreSQL, runs the scene on fresh databases and stops the server. What
// the user must change (an unknown scene or mode, a script mistake, a
// --database-url without wal_level = logical for a cdc relay, a server that
// cannot boot for the flags given) is a *badinput.Error.
func RunHeadless(ctx context.Context, h Headless) (*Result, error) {
	if _, err := scenes.ParseMode(h.Mode); err != nil {
		return nil, badinput.Errorf("--mode %w", err)
	}
	all, err := scenes.Load(h.ScenesDir)
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	sc, err := scenes.Find(all, h.Scene)
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	opts := RunOptions{Mode: h.Mode, Variant: h.Variant, Seed: h.Seed, DBPrefix: h.DBPrefix, OnEntry: h.OnEntry}
	set, err := opts.Settings(sc)
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	// Refused before anything boots: the scene cannot run as written.
	if err := CheckScene(sc, set, h.PG.DatabaseURL != ""); err != nil {
		return nil, badinput.Wrap(err)
	}
	if h.Check != nil {
		if err := h.Check(set); err != nil {
			return nil, badinput.Wrap(err)
		}
	}
	srv, err := pg.Boot(ctx, h.PG)
	if err != nil {
		return nil, err // bad input already when the flags point at something unusable
	}
	defer srv.Stop()
	// Beside another outboxlab, databases of this run's own, dropped at
	// the end; on a --database-url server the command's own names.
	ns := srv.Namespace(h.DBPrefix, pg.BesideOwner)
	opts.DBPrefix = ns.Prefix()
	defer func() { _ = ns.Drop(context.Background(), srv, set.Pipelines()...) }()
	res, err := RunScene(ctx, srv, sc, opts)
	if err != nil {
		var script *ScriptError
		if errors.As(err, &script) || errors.Is(err, engine.ErrWALLevel) {
			// A relay: cdc scene on a --database-url server without
			// wal_level = logical: what the user pointed at must change.
			return nil, badinput.Wrap(err)
		}
		return nil, err
	}
	return res, nil
}
