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

	mu    sync.Mutex
	crash map[string]bool
	stall map[string]time.Duration
}

func newFaults(server *jetstream.Server, actors []string) *faults {
	return &faults{server: server, actors: actors, crash: map[string]bool{}, stall: map[string]time.Duration{}}
}

// hook is actor's: an armed fault fires at its next checkpoint.
func (f *faults) hook(actor string) engine.Hook {
	return func(ctx context.Context, ev engine.Event) error {
		f.mu.Lock()
		crash, stall := f.crash[actor], f.stall[actor]
		delete(f.crash, actor)
		delete(f.stall, actor)
		f.mu.Unlock()
		if crash {
			return fmt.Errorf("%s at %s: %w", actor, ev.Checkpoint, engine.ErrCrash)
		}
		if stall > 0 {
			t := time.NewTimer(stall)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
			}
		}
		return nil
	}
}

// handler serves POST /faults/crash/{actor}, POST /faults/stall/{actor}?for=D,
// POST /faults/broker/stop and POST /faults/broker/start.
func (f *faults) handler(mux *http.ServeMux) {
	mux.HandleFunc("POST /faults/crash/{actor}", func(w http.ResponseWriter, r *http.Request) {
		a := r.PathValue("actor")
		if !f.known(w, a) {
			return
		}
		f.mu.Lock()
		f.crash[a] = true
		f.mu.Unlock()
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
		f.mu.Lock()
		f.stall[a] = d
		f.mu.Unlock()
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
