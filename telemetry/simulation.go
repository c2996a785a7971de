package telemetry

import (
	"context"
	"time"

	"github.com/outboxlab/outboxlab/engine"
)

// Simulation is what a Collector reads of a simulation. The simulator
// implements it (simhttp.Figures adapts a *sim.Sim): this package knows the
// engine's figures and nothing of the simulator, so the simulator's wing
// imports it and never the other way round, and a deployment that serves
// its own figures (DeploymentCollector) links no simulator.
//
// Two values of one simulation must be == and of two simulations !=: the
// collector compares them to tell another simulation (the screen's next
// scene) from the same one read again.
type Simulation interface {
	// Figures reads every pipeline's figures, or fails whole: a scrape
	// shows one whole read of the simulation or nothing.
	Figures(ctx context.Context) (SimFigures, error)
	// Epoch counts the times the simulation started over (a rewind, a
	// reset): a change starts a new run of its counters.
	Epoch() int
}

// SimFigures are one read of a simulation.
type SimFigures struct {
	// Now is the simulator's virtual clock at the read.
	Now time.Time
	// BrokerUp is false while the fault "broker down" holds.
	BrokerUp bool
	// Pipelines are the running pipelines' figures (naive first in
	// compare mode).
	Pipelines []PipelineFigures
}

// PipelineFigures are one pipeline's figures: the engine's (S24) and the
// broker's counts of what it accepted and handed out.
type PipelineFigures struct {
	Pipeline string
	engine.Metrics
	Broker BrokerCounts
}

// BrokerCounts are what a simulation's broker counted.
type BrokerCounts struct {
	// Publishes are the messages it accepted (a republish counts again).
	Publishes int64
	// Deliveries are those it handed to consumers, redeliveries included.
	Deliveries int64
}
