package deploy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/httpapi"
)

// faults are what a workshop does to a running deployment, over HTTP:
// crash an actor (at its next checkpoint, as the simulator does; its
// supervisor starts a new one a second later), stall one (it freezes at its
// next checkpoint for a while, a consumer's ACK then comes after AckWait),
// stop the embedded JetStream server and start it again.
type faults struct {
	server *jetstream.Server // nil: the broker is at a URL, not ours to stop
	actors []string
	clock  engine.Clock

	mu     sync.Mutex
	crash  map[string]bool
	stall  map[string]time.Duration
	states map[string]*Actor
}

func newFaults(server *jetstream.Server, actors []string, clock engine.Clock) *faults {
	f := &faults{server: server, actors: actors, clock: clock, crash: map[string]bool{}, stall: map[string]time.Duration{},
		states: map[string]*Actor{}}
	for _, a := range actors {
		f.states[a] = &Actor{Name: a, State: ActorRunning}
	}
	return f
}

// hook is actor's: an armed fault fires at its next checkpoint.
func (f *faults) hook(actor string) engine.Hook {
	return func(ctx context.Context, ev engine.Event) error {
		f.mu.Lock()
		crash, stall := f.crash[actor], f.stall[actor]
		delete(f.crash, actor)
		delete(f.stall, actor)
		st := f.states[actor]
		if crash || stall > 0 {
			st.Armed = ""
		}
		if !crash && stall > 0 {
			st.State, st.Until = ActorStalled, f.clock.Now().Add(stall)
		}
		f.mu.Unlock()
		if crash {
			return fmt.Errorf("%s at %s: %w", actor, ev.Checkpoint, engine.ErrCrash)
		}
		if stall > 0 {
			defer f.set(actor, ActorRunning, time.Time{})
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-after(f.clock, stall):
			}
		}
		return nil
	}
}

func (f *faults) set(actor string, state ActorState, until time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.states[actor]
	st.State, st.Until = state, until
}

// ended is the supervisor's: actor ended and starts again after wait.
func (f *faults) ended(actor string, wait time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.states[actor]
	st.State, st.Until = ActorCrashed, f.clock.Now().Add(wait)
	st.Restarts++
}

// restarted is the supervisor's: a new actor runs.
func (f *faults) restarted(actor string) { f.set(actor, ActorRunning, time.Time{}) }

// armCrash arms a crash at actor's next checkpoint.
func (f *faults) armCrash(actor string) error {
	if !slices.Contains(f.actors, actor) {
		return f.unknown(actor)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// The last fault armed is the one that fires, and the one the screen
	// names: a stall armed before is dropped.
	delete(f.stall, actor)
	f.crash[actor] = true
	f.states[actor].Armed = fault.Crash
	return nil
}

// armStall arms a stall of d at actor's next checkpoint.
func (f *faults) armStall(actor string, d time.Duration) error {
	if !slices.Contains(f.actors, actor) {
		return f.unknown(actor)
	}
	if d <= 0 || d > httpapi.MaxStall {
		return fmt.Errorf("stall %s for %s: %w", actor, d, ErrBadDuration)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.crash, actor)
	f.stall[actor] = d
	f.states[actor].Armed = fault.Stall
	return nil
}

func (f *faults) unknown(actor string) error {
	return fmt.Errorf("no actor %q here (actors: %s): %w", actor, strings.Join(f.actors, ", "), ErrUnknownActor)
}

// snapshot copies every actor's state, in the actors' order.
func (f *faults) snapshot() []Actor {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Actor, 0, len(f.actors))
	for _, a := range f.actors {
		out = append(out, *f.states[a])
	}
	return out
}

// handler serves the faults API (httpapi.HandleFaults) on mux: the same
// paths and answers as serve's simulation, so a workshop's curl works on both.
func (f *faults) handler(mux *http.ServeMux) { httpapi.HandleFaults(mux, faultsAPI{f}) }

// faultsAPI is the deployment's faults as the faults API drives them.
type faultsAPI struct{ f *faults }

func (a faultsAPI) Crash(_ context.Context, actor string) (string, error) {
	if err := a.f.armCrash(actor); err != nil {
		return "", a.refused(err)
	}
	return fmt.Sprintf("armed: %s crashes at its next checkpoint; a supervisor starts a new one a second later\n", actor), nil
}

func (a faultsAPI) Stall(_ context.Context, actor string, d time.Duration) (string, error) {
	if err := a.f.armStall(actor, d); err != nil {
		return "", a.refused(err)
	}
	return fmt.Sprintf("armed: %s freezes for %s at its next checkpoint\n", actor, d), nil
}

func (a faultsAPI) Broker(_ context.Context, stop bool) (string, error) {
	if a.f.server == nil {
		return "", a.refused(ErrBrokerAtURL)
	}
	if stop {
		a.f.server.Stop()
		return "JetStream stopped: the relays hand their rows back and wait for it, consumers wait; its store is kept\n", nil
	}
	if err := a.f.server.Start(); err != nil {
		return "", fmt.Errorf("start JetStream: %w", err)
	}
	return "JetStream started again on its store: nothing it had acked is lost\n", nil
}

// refused maps the faults' errors to the API's statuses, in one place.
func (a faultsAPI) refused(err error) error {
	switch {
	case errors.Is(err, ErrUnknownActor):
		return &httpapi.FaultError{Status: http.StatusNotFound, Detail: err.Error()}
	case errors.Is(err, ErrBadDuration):
		return &httpapi.FaultError{Status: http.StatusBadRequest, Detail: err.Error()}
	case errors.Is(err, ErrBrokerAtURL):
		return &httpapi.FaultError{Status: http.StatusConflict, Detail: err.Error()}
	}
	return err
}
