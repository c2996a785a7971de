package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/fault"
)

// ActorState is what an actor is doing, as the pipeline view shows it.
type ActorState int

// Actor states.
const (
	Idle    ActorState = iota // between units of work
	Paused                    // stopped at a checkpoint, waiting for its next step
	Stalled                   // held at a checkpoint by a fault until resumed
	Blocked                   // inside PostgreSQL, waiting for another transaction's lock
	Crashed                   // dead; restart brings it back
	Down                      // the broker, taken down
)

func (s ActorState) String() string {
	return [...]string{"idle", "paused", "stalled", "blocked", "crashed", "down"}[s]
}

// unitResult is what one unit of an actor's work came to.
type unitResult struct {
	idle    bool // there was nothing to do
	summary Text // a line for the timeline, if the unit ended with news (Key "": none)
}

// park is an actor stopped at a checkpoint: the simulator answers on reply
// (nil: go on; a fault error: crash there, fail the commit, …).
type park struct {
	ev    engine.Event
	reply chan error
}

// actorMsg is what an actor's goroutine tells the scheduler: it reached a
// checkpoint, or it finished a unit of work.
type actorMsg struct {
	park *park
	done bool
	res  unitResult
	err  error
}

// runner drives one actor: a goroutine that runs a unit of work (a request,
// a relay step, a delivery) when told to, and parks at every checkpoint until
// the scheduler lets it go on. Only one actor moves at a time, which is what
// makes a run deterministic: interleavings are the scheduler's choices, not
// the Go runtime's.
type runner struct {
	name  string
	pipe  *Pipeline
	unit  func(ctx context.Context) (unitResult, error)
	start chan struct{}
	msgs  chan actorMsg

	state   ActorState
	parked  *park
	at      engine.Checkpoint // where it is parked or stalled
	triedAt uint64            // world version when it last found nothing to do
	armed   map[engine.Checkpoint]fault.Fault
	crashes int
	lastIDs []uuid.UUID // the messages of its latest checkpoint, for explaining a crash there
	// published are the messages a relay published since its latest
	// claim, in order: what its mark asks for.
	published []uuid.UUID
}

type runnerKey struct{}

func newRunner(p *Pipeline, name string, unit func(ctx context.Context) (unitResult, error)) *runner {
	return &runner{name: name, pipe: p, unit: unit, start: make(chan struct{}), msgs: make(chan actorMsg), armed: map[engine.Checkpoint]fault.Fault{}, triedAt: ^uint64(0)}
}

// loop is the actor's goroutine.
func (r *runner) loop(ctx context.Context) {
	uctx := context.WithValue(ctx, runnerKey{}, r)
	for {
		select {
		case <-r.start:
		case <-ctx.Done():
			return
		}
		res, err := r.unit(uctx)
		select {
		case r.msgs <- actorMsg{done: true, res: res, err: err}:
		case <-ctx.Done():
			return
		}
	}
}

// hook is the engine.Hook of every simulated actor: it hands the checkpoint
// to the scheduler and blocks until told how to go on. Work not started by a
// runner (maintenance, the oracle) passes straight through.
func hook(ctx context.Context, ev engine.Event) error {
	r, ok := ctx.Value(runnerKey{}).(*runner)
	if !ok {
		return nil
	}
	p := &park{ev: ev, reply: make(chan error, 1)}
	select {
	case r.msgs <- actorMsg{park: p}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-p.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errLockWait means the actor is inside PostgreSQL waiting for a lock.
var errLockWait = errors.New("waiting for a lock")

// probeEvery is how often await asks whether an actor that has not
// reported waits for a lock: seldom enough that an actor merely slow (a
// busy machine) is rarely asked about.
const probeEvery = 20 * time.Millisecond

// await waits for the actor's next message. An actor that does not report
// may be waiting on a lock another (parked) actor holds — an INSERT behind an
// uncommitted duplicate key, say: then it is Blocked, and the scheduler goes
// on with others.
//
// The probe asks PostgreSQL every probeEvery, from the first: when it asks
// changes nothing of a run, since an actor is taken for blocked only once it
// waits for a lock and no backend runs, a state nothing but a parked
// actor's next step (or the learner) changes. (The first probe came at 60 ms
// when asking too early could be wrong.)
func (r *runner) await(ctx context.Context) (actorMsg, error) {
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	deadline := time.Now().Add(2 * time.Minute)
	var probeErr error
	for {
		select {
		case m := <-r.msgs:
			return m, nil
		case <-ctx.Done():
			return actorMsg{}, ctx.Err()
		case <-tick.C:
			// A probe that fails (PostgreSQL gone) cannot say the actor
			// waits for a lock; the actor is still mid-step and will
			// report its own failure, which must be received here, or
			// its goroutine would be left sending to nobody. It waits for
			// good only once no backend runs: one that does may yet
			// release the lock, or be the waiter, granted the lock and not
			// yet woken (see Sim.settleBlocked).
			st, err := r.pipe.lockState(ctx)
			if err == nil && st.waits[r.name] && st.running == 0 {
				return actorMsg{}, errLockWait
			}
			probeErr = err
			if time.Now().After(deadline) {
				return actorMsg{}, errors.Join(fmt.Errorf("%s did not reach a checkpoint in 2 minutes", r.name), probeErr)
			}
		}
	}
}

// runnable reports whether the scheduler may move the actor now, given the
// world version (an actor that found nothing to do is not tried again until
// something changes).
func (r *runner) runnable(version uint64) bool {
	switch r.state {
	case Paused:
		return true
	case Idle:
		return r.triedAt != version
	}
	return false
}
