package deploy

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/outboxlab/outboxlab/engine"
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
			t := time.NewTimer(stall)
			defer t.Stop()
			defer f.set(actor, ActorRunning, time.Time{})
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
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
	f.states[actor].Armed = FaultCrash
	return nil
}

// armStall arms a stall of d at actor's next checkpoint.
func (f *faults) armStall(actor string, d time.Duration) error {
	if !slices.Contains(f.actors, actor) {
		return f.unknown(actor)
	}
	if d <= 0 || d > time.Hour {
		return fmt.Errorf("stall %s for %s: %w", actor, d, ErrBadDuration)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.crash, actor)
	f.stall[actor] = d
	f.states[actor].Armed = FaultStall
	return nil
}

func (f *faults) unknown(actor string) error {
	return fmt.Errorf("no actor %q (actors: %v): %w", actor, f.actors, ErrUnknownActor)
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

// handler serves POST /faults/crash/{actor}, POST /faults/stall/{actor}?for=D,
// POST /faults/broker/stop and POST /faults/broker/start.
func (f *faults) handler(mux *http.ServeMux) {
	mux.HandleFunc("POST /faults/crash/{actor}", func(w http.ResponseWriter, r *http.Request) {
		a := r.PathValue("actor")
		if !f.known(w, a) {
			return
		}
		_ = f.armCrash(a) // known: cannot fail
		say(w, fmt.Sprintf("armed: %s crashes at its next checkpoint; a supervisor starts a new one a second later\n", a))
	})
	mux.HandleFunc("POST /faults/stall/{actor}", func(w http.ResponseWriter, r *http.Request) {
		a := r.PathValue("actor")
		if !f.known(w, a) {
			return
		}
		d, err := time.ParseDuration(r.URL.Query().Get("for"))
		if err != nil || d <= 0 || d > time.Hour {
			httpapi.WriteProblem(w, http.StatusBadRequest, "for: want a duration up to 1h, e.g. ?for=45s")
			return
		}
		_ = f.armStall(a, d) // known, and d checked
		say(w, fmt.Sprintf("armed: %s freezes for %s at its next checkpoint\n", a, d))
	})
	mux.HandleFunc("POST /faults/broker/{op}", func(w http.ResponseWriter, r *http.Request) {
		if f.server == nil {
			httpapi.WriteProblem(w, http.StatusConflict, "the broker runs at a URL, not in this process: stop it there")
			return
		}
		switch r.PathValue("op") {
		case "stop":
			f.server.Stop()
			say(w, "JetStream stopped: publishes fail (the relays schedule retries), consumers wait; its store is kept\n")
		case "start":
			if err := f.server.Start(); err != nil {
				httpapi.WriteProblem(w, http.StatusInternalServerError, err.Error())
				return
			}
			say(w, "JetStream started again on its store: nothing it had acked is lost\n")
		default:
			httpapi.WriteProblem(w, http.StatusNotFound, "want /faults/broker/stop or /faults/broker/start")
		}
	})
}

func (f *faults) known(w http.ResponseWriter, actor string) bool {
	if slices.Contains(f.actors, actor) {
		return true
	}
	httpapi.WriteProblem(w, http.StatusNotFound, fmt.Sprintf("no actor %q (actors: %v)", actor, f.actors))
	return false
}

func say(w http.ResponseWriter, s string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte(s))
}
