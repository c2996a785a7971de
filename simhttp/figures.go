package simhttp

import (
	"context"
	"fmt"

	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/telemetry"
)

// Figures is s as telemetry reads it (GET /metrics), nil for no
// simulation: the simulator's adapter to telemetry.Simulation, kept on the
// simulator's side so that telemetry imports no simulator. Figures of one
// *sim.Sim are ==, as the collector needs.
func Figures(s *sim.Sim) telemetry.Simulation {
	if s == nil {
		return nil // a nil interface, not a nil *sim.Sim in one
	}
	return figures{s}
}

// figures adapts a *sim.Sim to telemetry.Simulation.
type figures struct{ s *sim.Sim }

// Figures reads the engine's figures and the broker's counts of every
// pipeline, and whether the broker is up. Its reads are a few, each of one
// moment; a simulation running meanwhile may move between them.
func (f figures) Figures(ctx context.Context) (telemetry.SimFigures, error) {
	out := telemetry.SimFigures{BrokerUp: true}
	ms, err := f.s.Metrics(ctx)
	if err != nil {
		return out, fmt.Errorf("read metrics: %w", err)
	}
	ors, err := f.s.Oracles(ctx)
	if err != nil {
		return out, fmt.Errorf("read the broker's counts: %w", err)
	}
	for _, a := range f.s.Actors() {
		if a.Name == "broker" && a.State == sim.Down {
			out.BrokerUp = false
		}
	}
	out.Now = f.s.Now()
	for _, m := range ms {
		p := telemetry.PipelineFigures{Pipeline: m.Pipeline, Metrics: m.Metrics}
		for _, o := range ors {
			if o.Pipeline == m.Pipeline {
				p.Broker = telemetry.BrokerCounts{Publishes: o.Publishes, Deliveries: o.Deliveries}
			}
		}
		out.Pipelines = append(out.Pipelines, p)
	}
	return out, nil
}

// Epoch counts the simulation's resets.
func (f figures) Epoch() int { return f.s.Epoch() }
