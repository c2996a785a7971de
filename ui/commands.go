package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/boot"
	"github.com/outboxlab/outboxlab/ui/tables"
	"github.com/outboxlab/outboxlab/ui/timeline"
)

// bootCmd boots PostgreSQL; each boot step is sent on progress as it begins, and
// the channel is closed when Boot returns.
func bootCmd(ctx context.Context, opts pg.Options, progress chan<- pg.Progress, res *resources) tea.Cmd {
	return func() tea.Msg {
		res.mu.Lock()
		if res.ended {
			res.mu.Unlock()
			return nil
		}
		res.booting = true
		res.mu.Unlock()
		defer close(res.bootDone)
		user := opts.Progress
		opts.Progress = func(p pg.Progress) {
			if user != nil {
				user(p)
			}
			select {
			case progress <- p:
			case <-ctx.Done():
			}
		}
		srv, err := pg.Boot(ctx, opts)
		close(progress)
		if err == nil {
			res.mu.Lock()
			res.srv, res.ownsSrv = srv, true
			res.mu.Unlock()
		}
		return boot.DoneMsg{Srv: srv, Err: err}
	}
}

// simReadyMsg is a new simulation, built for a scene, with the session that
// logs what is done to it.
type simReadyMsg struct {
	id      int
	session *sim.Session
	sim     *sim.Sim
	done    chan struct{}
	actors  []sim.ActorView
	pos     sim.Position
	err     error
}

// newSimCmd builds the next simulation: the previous one's session renewed
// when it is given (renew, the session of old), else a new one after old is
// closed (its databases are reused either way). Renewed, the actors keep
// their connections: a new simulation connects each again, and a new
// backend costs PostgreSQL 25–50 ms of CPU on a small VM (a compare scene
// opens 13), most of the time a learner waits for the next step or scene.
// The renewed run is the run a new simulation makes (chaos's workers
// renew the same way, and TestAWorkerRunsAsAFreshSessionDoes holds them to
// it).
func newSimCmd(ctx context.Context, res *resources, old *sim.Sim, renew *sim.Session, id int, cfg sim.Config, script []scenes.Step) tea.Cmd {
	return func() tea.Msg {
		res.building.Lock()
		defer res.building.Unlock()
		if renew != nil && renew.Sim() == old {
			if done, ok := res.renewSim(old); ok {
				if err := renew.Renew(ctx, cfg.Settings, cfg.Seed); err == nil {
					renew.SetScript(script)
					return simReadyMsg{id: id, session: renew, sim: old, done: done, actors: old.Actors(), pos: renew.Position()}
				}
			}
		}
		if old != nil {
			res.closeSim(old)
		}
		se, err := sim.NewSession(ctx, cfg)
		if err != nil {
			return simReadyMsg{id: id, err: err}
		}
		se.SetScript(script)
		s := se.Sim()
		done := res.addSim(s)
		return simReadyMsg{id: id, session: se, sim: s, done: done, actors: s.Actors(), pos: se.Position()}
	}
}

// simChangedMsg says the simulation changed: time to read it again.
type simChangedMsg struct{ id int }

// waitChangedCmd blocks on the simulation's channel and returns one
// message; Update re-arms it.
func waitChangedCmd(ctx context.Context, s *sim.Sim, done <-chan struct{}, id int) tea.Cmd {
	ch := s.Changed()
	return func() tea.Msg {
		select {
		case <-ch:
			return simChangedMsg{id}
		case <-done:
		case <-ctx.Done():
		}
		return nil
	}
}

type actionKind int

const (
	actUnit    actionKind = iota // one unit of play (sim.Session.Play): the run's next step, the script's next command or one step
	actStep                      // sim.Step
	actDo                        // sim.Do(step)
	actEval                      // a lesson step's checks (lessons.Step.Eval)
	actBack                      // the session goes back one command (a rewind)
	actForward                   // the session redoes the next command of its log
	actSave                      // the session is written as a scene file
	actScript                    // the session gets the script n plays next
	actSeek                      // the session goes to point to of its log (scrubbing)
	actOther                     // after a fork, the session swaps to the other future (the original, or the fork)
)

// action is one thing to do to the simulation; actions run one at a time.
type action struct {
	kind   actionKind
	step   scenes.Step
	script bool // came from the scene's script
	inRun  bool // a step of a scripted run or drain
	user   bool // the learner asked for it

	check  *lessons.Step    // actEval: the step whose checks run
	mark   bool             // actEval: the step begins now (since = the timeline's length)
	since  int              // actEval: timeline entries before the step began
	found  lessons.Findings // actEval: what the step found outside the simulator
	ticket int              // actDo: the HTTP client waiting for this request's answer

	save  saveTo        // actSave: where, and the scene it starts from
	steps []scenes.Step // actScript: the script
	to    int           // actSeek: the point
}

// evalResult is a lesson step's checks, evaluated after an action.
type evalResult struct {
	since    int
	passed   bool
	outcomes []lessons.Outcome
	dead     *lessons.Check // a check that can never hold again (beyondReach)
}

// actionDoneMsg is an action's outcome, with the actors' states read right
// after it (sim.Actors is only read while no other operation runs).
type actionDoneMsg struct {
	id     int
	act    action
	moved  bool
	actors []sim.ActorView
	now    time.Time
	err    error

	entries []sim.Entry // what the action added to the timeline
	eval    *evalResult // actEval's result
	pos     sim.Position
	saved   string       // actSave: the file written
	answers []sim.Answer // the api's answers to HTTP clients this action gave
}

func actionCmd(ctx context.Context, se *sim.Session, id int, a action) tea.Cmd {
	s := se.Sim()
	return func() tea.Msg {
		var moved bool
		var err error
		var saved string
		before := len(s.Timeline(0))
		switch a.kind {
		case actEval:
			since := a.since
			if a.mark {
				since = before
			}
			passed, out, err := a.check.EvalWith(ctx, s, since, a.found)
			var dead *lessons.Check
			if err == nil && !passed {
				dead = beyondReach(ctx, s, a.check)
			}
			return actionDoneMsg{id: id, act: a, actors: s.Actors(), now: s.Now(), err: err, pos: se.Position(),
				eval: &evalResult{since: since, passed: passed, outcomes: out, dead: dead}}
		case actUnit:
			// The session decides what the unit is; the action says
			// what it was, for captions and notices.
			var u sim.Unit
			u, moved, err = se.Play(ctx)
			a.step, a.script, a.inRun, a.kind = u.Step, u.Script, u.InRun, actDo
			if u.Step.Cmd == scenes.CmdNext && len(u.Step.Args) == 0 {
				a.kind = actStep
			}
		case actScript:
			se.SetScript(a.steps)
		case actStep:
			moved, err = se.Do(ctx, scenes.Next)
		case actDo:
			if a.ticket != 0 {
				s.SetTicket(a.ticket)
			}
			moved, err = se.Do(ctx, a.step)
			s.SetTicket(0) // a refused request took no ticket
		case actBack:
			moved, err = se.Back(ctx)
		case actForward:
			moved, err = se.Forward(ctx)
		case actSeek:
			err = se.Seek(ctx, a.to)
			moved = err == nil
		case actOther:
			moved, err = se.OtherFuture(ctx)
		case actSave:
			saved, err = a.save.write(ctx, se)
		}
		msg := actionDoneMsg{id: id, act: a, moved: moved, actors: s.Actors(), now: s.Now(), err: err, pos: se.Position(), saved: saved, answers: s.TakeAnswers()}
		if a.kind != actBack && a.kind != actForward && a.kind != actSeek && a.kind != actOther {
			msg.entries = s.Timeline(before)
		}
		return msg
	}
}

// snapshotMsg is one read of the simulation after a change: the oracles,
// the S24 figures, what is in flight, the new timeline entries and the
// table in view; the root hands each to the panes that draw it.
type snapshotMsg struct {
	id       int
	gen      int
	now      time.Time
	oracles  []sim.Oracle
	metrics  []sim.Metrics
	edges    []sim.Edge
	timeline timeline.EntriesMsg
	table    tables.ReadMsg
	err      error
}

func snapshotCmd(ctx context.Context, s *sim.Sim, id, gen, epoch, from int, req tables.Request) tea.Cmd {
	return func() tea.Msg {
		msg := snapshotMsg{id: id, gen: gen}
		entries, now, reset := s.TimelineSince(epoch, from)
		msg.timeline = timeline.EntriesMsg{From: from, Entries: entries, Epoch: now, Reset: reset}
		msg.now = s.Now()
		o, err := s.Oracles(ctx)
		if err != nil {
			msg.err = err
			return msg
		}
		msg.oracles = o
		ms, err := s.Metrics(ctx)
		if err != nil {
			msg.err = err
			return msg
		}
		msg.metrics = ms
		edges, err := s.Edges(ctx)
		if err != nil {
			msg.err = err
			return msg
		}
		msg.edges = edges
		tb, err := s.Table(ctx, req.Pipeline, req.Name, req.Offset, req.Limit)
		msg.table = tables.ReadMsg{SimID: id, Gen: gen, Pipeline: req.Pipeline, Table: tb, Err: err}
		return msg
	}
}

// tickMsg drives autoplay; a tick with a stale tag is dropped.
type tickMsg struct{ tag int }

func tickCmd(d time.Duration, tag int) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return tickMsg{tag} })
}
