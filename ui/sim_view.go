package ui

import (
	"time"

	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/guarantees"
	"github.com/outboxlab/outboxlab/ui/lesson"
	"github.com/outboxlab/outboxlab/ui/metrics"
	"github.com/outboxlab/outboxlab/ui/overlay/chaosrun"
	"github.com/outboxlab/outboxlab/ui/overlay/chooser"
	"github.com/outboxlab/outboxlab/ui/overlay/picker"
	"github.com/outboxlab/outboxlab/ui/overlay/storyview"
	"github.com/outboxlab/outboxlab/ui/pipeline"
	"github.com/outboxlab/outboxlab/ui/tables"
	"github.com/outboxlab/outboxlab/ui/timeline"
)

// simView is the simulation on screen, whatever the mode: the simulator and
// its session, how its run stands (runState: the queue of actions that run
// on it one at a time, autoplay, the notice), the panes that draw it and
// the overlays opened over them. Model embeds it.
type simView struct {
	sim      *sim.Sim
	session  *sim.Session // logs what is done to sim: rewind, fork, save
	pos      sim.Position // where the session stands (read after each action)
	simDone  chan struct{}
	simID    int
	settings scenes.Settings
	simErr   error

	panes   // what the pages lay out and draw
	picker  picker.Pane
	chooser chooser.Pane
	story   storyview.Pane // one message's life, while overlayStory is open
	chaos   chaosrun.Pane  // a chaos run and its table, while overlayChaos is open

	overlays    overlays // the panes open over the body, the top one taking the keys
	compareView bool
	focus       focus

	run        runState // the queue, autoplay, the reads in flight, the notice
	requests   int
	brokerDown bool
	pgDown     string // PostgreSQL stopped under the simulation: why
	inFlight   bool   // something waits in an outbox or the broker (the last snapshot)
	actors     []sim.ActorView
	now        time.Time
}

// panes are the panes that draw the simulation, the ones a page lays out
// in the body and draws there. The lesson pane is the pages' to fill: the
// free simulator's scene, a lesson's step and quiz.
type panes struct {
	pipeline   pipeline.Pane
	tables     tables.Pane
	timeline   timeline.Pane
	guarantees guarantees.Pane
	metrics    metrics.Pane
	lesson     lesson.Pane
}
