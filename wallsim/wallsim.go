package wallsim

import (
	"context"
	"fmt"
	"time"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/simhttp"
)

// Options say what to run.
type Options struct {
	Server   *pg.Server
	Settings scenes.Settings
	Seed     uint64
	DBPrefix string
	Tracing  sim.Tracing
	// Edge is the HTTP API, listening already; Run serves it.
	Edge *simhttp.Server
	// Tick is how often the clock follows wall time; default 100 ms.
	Tick time.Duration
}

// Run builds the simulation and drives it until ctx ends: each request the
// moment it arrives (the api answers at once), each fault posted to
// /faults/… as a deployment takes it (supervisor), and every tick the
// virtual clock moved on by the wall time that passed, every actor run
// until quiet. It is the simulation's only driver: simhttp's handlers
// reach it through a channel. The virtual clock starts at the wall time
// Run starts at, so what it stores (created_at, published_at) reads as a
// deployment's would.
func Run(ctx context.Context, o Options) error {
	if o.Tick <= 0 {
		o.Tick = 100 * time.Millisecond
	}
	start := time.Now()
	s, err := sim.New(ctx, sim.Config{Server: o.Server, Settings: o.Settings, Seed: o.Seed, DBPrefix: o.DBPrefix, Tracing: o.Tracing,
		Start: start.UTC().Truncate(time.Microsecond)})
	if err != nil {
		return fmt.Errorf("live: %w", err)
	}
	defer s.Close()
	requests := make(chan simhttp.Request, 64)
	o.Edge.Simulating(s, o.Server, o.DBPrefix)
	o.Edge.TakeFaults()
	o.Edge.Serve(func(r simhttp.Request) {
		select {
		case requests <- r:
		case <-ctx.Done():
		}
	}, nil)
	defer o.Edge.Close()

	sup := newSupervisor(o.Settings)
	tick := time.NewTicker(o.Tick)
	defer tick.Stop()
	last := start // the first tick catches up the time New took
	for {
		var err error
		select {
		case <-ctx.Done():
			return nil
		case r := <-requests:
			if r.Fault != nil {
				// A fault that cannot be done is its client's answer,
				// not the end of the simulation.
				o.Edge.Answer(sim.Answer{Ticket: r.Ticket, Err: sup.apply(ctx, s, *r.Fault)})
				break
			}
			s.SetTicket(r.Ticket)
			err = s.Do(ctx, simhttp.Step(r.Req))
			s.SetTicket(0)
			if err != nil {
				o.Edge.Answer(sim.Answer{Ticket: r.Ticket, Err: err})
				err = nil
				break
			}
			err = s.Do(ctx, scenes.Run) // a live api answers now, not at the next tick
		case now := <-tick.C:
			// Whole microseconds, PostgreSQL's: a 201's created_at is
			// then the one GET reads back from the table.
			d := now.Sub(last).Truncate(time.Microsecond)
			err = s.Elapse(ctx, d)
			last = last.Add(d)
			for _, st := range sup.due(s.Actors(), now) {
				if err == nil {
					err = s.Do(ctx, st)
				}
			}
		}
		sup.watch(s.Actors(), time.Now())
		o.Edge.Answer(s.TakeAnswers()...)
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("live: %w", err)
		}
	}
}
