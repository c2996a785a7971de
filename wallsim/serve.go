package wallsim

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/simhttp"
	"github.com/outboxlab/outboxlab/telemetry"
)

// ServePrefix names the databases of serve --http's simulation in real time
// (serve_outbox, serve_naive).
const ServePrefix = "serve"

// Serve is `outboxlab serve --http` on the in-process broker.
type Serve struct {
	Server   *pg.Server
	Edge     *simhttp.Server // listening already
	Settings scenes.Settings
	Seed     uint64
	// OTLP, when set, is the OTLP/HTTP endpoint the actors' spans go to.
	OTLP string
	// Out hears where the payments are and how to feed the API; Errs hears
	// the exporter's failures.
	Out, Errs io.Writer
}

// RunServe runs a simulation of s.Settings in real time behind s.Edge until
// ctx ends, on databases of its own. A collector's endpoint that cannot be
// used is bad input (a *badinput.Error).
func RunServe(ctx context.Context, s Serve) error {
	srv, set, e := s.Server, s.Settings, s.Edge
	// Its own databases: a simulation resets them at start, and live_outbox
	// is the deployment's (serve --broker, live), which a restart keeps.
	// On a server outboxlab did not boot here, databases of this run's
	// own, dropped at the end.
	ns := srv.Namespace(ServePrefix, pg.NotBootedHere)
	if ns.Owned() {
		defer func() {
			dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = ns.Drop(dctx, srv, set.Pipelines()...)
		}()
	}
	opts := Options{Server: srv, Settings: set, Seed: s.Seed, DBPrefix: ns.Prefix(), Edge: e}
	if s.OTLP != "" {
		exp, err := telemetry.NewOTLPExporter(ctx, s.OTLP, func(err error) { fmt.Fprintf(s.Errs, "outboxlab serve: otlp: %v\n", err) })
		if err != nil {
			return badinput.Errorf("--otlp %s: %w", s.OTLP, err)
		}
		tp := telemetry.NewTracerProvider(telemetry.TracingConfig{Exporter: exp})
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			_ = tp.Shutdown(sctx)
		}()
		opts.Tracing = sim.Tracing{Provider: tp}
	}
	// The payments are in the pipelines' databases, not the server's
	// outboxlab database (empty here).
	for _, kind := range set.Pipelines() {
		fmt.Fprintf(s.Out, "%-10s psql '%s'\n", kind+":", srv.DatabaseURL(ns.Database(kind)))
	}
	fmt.Fprintf(s.Out, "%-10s http://%s (mode %s: the api answers at once; the relay and consumers run as time passes)\n", "api:", e.Addr, set.Mode)
	for _, c := range e.Curl() {
		lead := "try:"
		if strings.HasPrefix(c, " ") {
			lead = "" // a continuation of the command above
		}
		fmt.Fprintf(s.Out, "%-10s %s\n", lead, c)
	}
	// The same faults API as serve --broker's, so the README's exercise
	// (stall a consumer, watch the backlog on /metrics) needs no TUI.
	fmt.Fprintf(s.Out, "%-10s curl -X POST %s/faults/crash/relay-1   (also: /faults/stall/accounting?for=45s, /faults/broker/stop, /faults/broker/start)\n", "faults:", e.Addr)
	fmt.Fprintln(s.Out, "serving; Ctrl-C stops")
	return Run(ctx, opts)
}
