package ui

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/sim"
)

// resources are what must be released when the TUI ends, whatever state its
// model is in: the server it booted and every simulation it built. They live
// outside the model (Run reads them after the program ends); commands record
// what they create here, and nothing here is drawn.
type resources struct {
	mu sync.Mutex
	// building serialises simulations being built: two scenes opened in
	// quick succession share database names (the prefix), and building them
	// at once would reset each other's databases under them.
	building sync.Mutex
	srv      *pg.Server
	ownsSrv  bool
	sims     map[*sim.Sim]chan struct{}
	bootDone chan struct{} // closed when a boot started by this TUI returned
	booting  bool          // the boot command began (bootDone will close)
	ended    bool          // the program ended: a boot not yet begun never will
	// dropOnExit is this TUI's own namespace on a server another
	// outboxlab owns: dropped when it quits, since no reset ever reuses
	// it. Elsewhere it owns nothing, and its Drop drops nothing.
	dropOnExit pg.Namespace
	// chaos counts chaos runs going on: shutdown waits for them (their
	// context is cancelled first) so each drops its databases while the
	// server is still up.
	chaos sync.WaitGroup
	// tracing is flushed once every simulation closed.
	tracing *tracing
}

func newResources() *resources {
	return &resources{sims: map[*sim.Sim]chan struct{}{}}
}

func (r *resources) addSim(s *sim.Sim) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	done := make(chan struct{})
	r.sims[s] = done
	return done
}

// renewSim ends the watch of s's current run (its done channel) and starts
// one for the run it is renewed to; false if s is no longer kept (the
// program is shutting down), and it must not be renewed.
func (r *resources) renewSim(s *sim.Sim) (chan struct{}, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	done, ok := r.sims[s]
	if !ok {
		return nil, false
	}
	close(done)
	done = make(chan struct{})
	r.sims[s] = done
	return done, true
}

func (r *resources) closeSim(s *sim.Sim) {
	r.mu.Lock()
	done, ok := r.sims[s]
	delete(r.sims, s)
	r.mu.Unlock()
	if ok {
		close(done)
		s.Close()
	}
}

// shutdown closes every simulation and stops the server if this TUI booted it.
func (r *resources) shutdown() error {
	waited := make(chan struct{})
	go func() { r.chaos.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(time.Minute):
	}
	r.mu.Lock()
	sims := make([]*sim.Sim, 0, len(r.sims))
	for s := range r.sims {
		sims = append(sims, s)
	}
	r.mu.Unlock()
	for _, s := range sims {
		r.closeSim(s)
	}
	// A collector that is gone loses spans, not the session: its error
	// is not the learner's to see at exit.
	_ = r.tracing.shutdown()
	r.mu.Lock()
	srv, owns, drop := r.srv, r.ownsSrv, r.dropOnExit
	r.srv = nil
	r.mu.Unlock()
	if srv != nil && owns {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return errors.Join(drop.DropAll(ctx, srv), srv.Stop())
	}
	return nil
}
