package wallsim

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/simhttp"
)

// restartAfter is how long a crashed actor stays down before its
// supervisor starts a new one: a deployment's (deploy) second.
const restartAfter = time.Second

// supervisor does to a live simulation what a deployment's faults and
// supervisors do to its actors (deploy/faults.go), with the simulator's
// own commands, the ones the TUI's keys send: a crash or a stall armed at
// the actor's next checkpoint, a crashed actor restarted a second later,
// a stalled one resumed when its time is up. Only the driver calls it.
type supervisor struct {
	set       scenes.Settings
	stallFor  map[string]time.Duration // armed stalls, by pipeline/actor
	resumeAt  map[string]time.Time     // stalled actors, when they go on
	restartAt map[string]time.Time     // crashed actors, when they start again
}

func newSupervisor(set scenes.Settings) *supervisor {
	return &supervisor{set: set, stallFor: map[string]time.Duration{}, resumeAt: map[string]time.Time{}, restartAt: map[string]time.Time{}}
}

// apply does f to s. An actor is named as the faults API names it
// (relay-1), or with its pipeline (outbox/relay-1) in compare mode, where
// a bare name is the actor of every pipeline that runs it.
func (v *supervisor) apply(ctx context.Context, s *sim.Sim, f simhttp.Fault) error {
	switch f.Kind {
	case fault.Broker:
		return s.Do(ctx, scenes.Broker(!f.Stop))
	case fault.Crash, fault.Stall:
	default:
		return fmt.Errorf("fault %q: not one the simulation knows", f.Kind)
	}
	views := s.Actors()
	keys := matching(views, f.Actor)
	if len(keys) == 0 {
		return &httpapi.FaultError{Status: http.StatusNotFound,
			Detail: fmt.Sprintf("no actor %q here (actors: %s)", f.Actor, strings.Join(names(views), ", "))}
	}
	// Its next checkpoint: every unit of an actor's work begins at its
	// first (a relay's claim, a consumer's delivery, the api's BEGIN), and
	// between the driver's turns every actor that is not held is between
	// units. The last fault armed is the one that fires: arming replaces
	// whatever was armed there.
	cps := v.set.CheckpointsFor(f.Actor)
	if len(cps) == 0 {
		return &httpapi.FaultError{Status: http.StatusNotFound, Detail: fmt.Sprintf("%s has no checkpoint to fail at", f.Actor)}
	}
	for _, k := range keys {
		delete(v.stallFor, k) // a crash armed over a stall: no stall to time
		if f.Kind == fault.Stall {
			v.stallFor[k] = f.For
		}
	}
	return s.Do(ctx, scenes.Arm(f.Kind, f.Actor, cps[0]))
}

// watch notes the actors a fault took down: a crashed one starts again
// after restartAfter, a stalled one goes on after its stall.
func (v *supervisor) watch(views []sim.ActorView, now time.Time) {
	for _, a := range views {
		k := key(a)
		switch a.State {
		case sim.Crashed:
			if _, ok := v.restartAt[k]; !ok {
				v.restartAt[k] = now.Add(restartAfter)
			}
		case sim.Stalled:
			if d, ok := v.stallFor[k]; ok {
				delete(v.stallFor, k)
				v.resumeAt[k] = now.Add(d)
			}
		}
	}
}

// due returns the commands whose time has come, in a fixed order: the
// restarts and resumes of actors still crashed or stalled.
func (v *supervisor) due(views []sim.ActorView, now time.Time) []scenes.Step {
	var out []scenes.Step
	for _, a := range views {
		k := key(a)
		if t, ok := v.restartAt[k]; ok && (a.State != sim.Crashed || !now.Before(t)) {
			delete(v.restartAt, k)
			if a.State == sim.Crashed {
				out = append(out, scenes.Restart(k))
			}
		}
		if t, ok := v.resumeAt[k]; ok && (a.State != sim.Stalled || !now.Before(t)) {
			delete(v.resumeAt, k)
			if a.State == sim.Stalled {
				out = append(out, scenes.Resume(k))
			}
		}
	}
	return out
}

// key names an actor with its pipeline, as the scene language does.
func key(a sim.ActorView) string { return a.Pipeline + "/" + a.Name }

// matching are the pipeline/actor keys name picks, brokers aside.
func matching(views []sim.ActorView, name string) []string {
	var out []string
	for _, a := range views {
		if a.Name != "broker" && (a.Name == name || key(a) == name) {
			out = append(out, key(a))
		}
	}
	return out
}

// names are the actors' names, each once, in the screen's order.
func names(views []sim.ActorView) []string {
	var out []string
	for _, a := range views {
		if a.Name != "broker" && !slices.Contains(out, a.Name) {
			out = append(out, a.Name)
		}
	}
	return out
}
