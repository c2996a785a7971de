// Package ui is outboxlab's terminal simulator: a Bubble Tea program that
// boots PostgreSQL, runs a scene's pipelines on it and lets the learner step,
// pause and break them while the tables, the timeline and the oracle's
// guarantees update on screen.
package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
)

// Options say what the TUI boots and opens.
type Options struct {
	// PG says how to boot PostgreSQL (its Progress, if set, is called too).
	PG pg.Options
	// ScenesDir adds scenes to the built-in ones ("" for the built-ins only).
	ScenesDir string
	// Scene is the scene opened first; "" opens the first in teaching order.
	Scene string
	// Seed replays a run; 0 keeps the scene's seed.
	Seed uint64
	// Mode overrides the scene's mode: "", "outbox", "naive" or "compare".
	Mode string
	// DBPrefix names the simulation's databases; default "tui".
	DBPrefix string
	// Autoplay starts the scene running instead of paused.
	Autoplay bool
}

// UsageError is bad input in Options (an unknown scene or mode, a malformed
// scene file): the caller's to fix, reported before anything boots.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// loadScenes reads the scenes and finds the one to open first.
func loadScenes(opts Options) ([]*scenes.Scene, *scenes.Scene, error) {
	switch opts.Mode {
	case "", "outbox", "naive", "compare":
	default:
		return nil, nil, &UsageError{fmt.Errorf("--mode %q: want outbox, naive or compare", opts.Mode)}
	}
	all, err := scenes.Load(opts.ScenesDir)
	if err != nil {
		return nil, nil, &UsageError{err}
	}
	if len(all) == 0 {
		return nil, nil, &UsageError{errors.New("no scenes to open")}
	}
	sc := all[0]
	if opts.Scene != "" {
		if sc, err = scenes.Find(all, opts.Scene); err != nil {
			return nil, nil, &UsageError{err}
		}
	}
	return all, sc, nil
}

// Run opens the simulator on the terminal: the boot screen at once while
// PostgreSQL boots, then the scene. It returns when the learner quits (or on
// SIGTERM/SIGHUP, or when ctx ends), after closing the simulation and
// stopping the server it booted. A boot failure is shown on screen and
// returned.
func Run(ctx context.Context, opts Options) error {
	all, sc, err := loadScenes(opts)
	if err != nil {
		return err
	}
	if opts.DBPrefix == "" {
		opts.DBPrefix = "tui"
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	res := newResources()
	res.bootDone = make(chan struct{})
	m := newModel(ctx, opts, all, sc, res)
	m.stages = make(chan pg.Progress, 8)

	// 30 frames a second is plenty for a stepped simulation and halves the
	// renderer's idle wake-ups.
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithFPS(30))
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go func() {
		select {
		case <-sigs:
			p.Quit()
		case <-ctx.Done():
		}
	}()

	final, runErr := p.Run()
	// Stop whatever is still running: a boot in progress is cancelled and
	// waited for, so the server it may have started is stopped too.
	cancel()
	select {
	case <-res.bootDone:
	case <-time.After(2 * time.Minute):
	}
	stopErr := res.shutdown()

	if fm, ok := final.(Model); ok && fm.phase == phaseBootFailed && fm.err != nil {
		return fm.err
	}
	if runErr != nil && !errors.Is(runErr, tea.ErrProgramKilled) && !errors.Is(runErr, tea.ErrInterrupted) {
		return runErr
	}
	if stopErr != nil {
		return fmt.Errorf("stop PostgreSQL: %w", stopErr)
	}
	return nil
}
