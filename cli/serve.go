package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/deploy/launch"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/simhttp"
	"github.com/outboxlab/outboxlab/ui"
	"github.com/outboxlab/outboxlab/wallsim"
	"github.com/spf13/cobra"
)

// newServe keeps PostgreSQL up for a look with psql; with --http it also
// runs a simulation live, in real time (or, with --broker nats…, the
// deployment for real) behind the HTTP API. It stops cleanly on SIGINT,
// SIGTERM or SIGHUP.
func newServe() *cobra.Command {
	var (
		pf                                pgFlags
		sf                                sceneFlags
		httpAddr, scene, otlp, brokerFlag string
		stream, logFormat                 string
		replicas                          int
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "boot PostgreSQL and keep it up (prints its URL for psql) until Ctrl-C",
		Long: `boot PostgreSQL and keep it up (prints its URL for psql) until Ctrl-C;
with --http HOST:PORT also a simulation live, in real time, behind
its HTTP API (POST /payments, GET /payments/{id}, GET /metrics);
--broker nats|nats://HOST:PORT[,…] runs the engine for real on JetStream
(--replicas N copies of its stream on a cluster); its database
live_outbox and its stream are kept across restarts, --fresh empties them`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			broker, err := deploy.ParseBroker(brokerFlag)
			if err != nil {
				return badinput.Wrap(err)
			}
			choice := launch.Choice{Broker: broker, Replicas: replicas, Fresh: pf.fresh, Stream: stream}
			if replicas != 0 && broker.Kind == deploy.BrokerInProcess {
				return badinput.New("--replicas goes with a JetStream broker (--broker nats://…): the in-process broker has no stream")
			}
			if stream != "" && broker.Kind == deploy.BrokerInProcess {
				return badinput.New("--stream goes with a JetStream broker (--broker nats…): the in-process broker has no stream")
			}
			if err := choice.Check(); err != nil {
				return err
			}
			logger, err := newLogger(logFormat, stderr)
			if err != nil {
				return err
			}
			var set scenes.Settings
			var e *httpapi.Listener
			if httpAddr != "" {
				// Bad input is said before anything boots: the scene, the mode, the
				// address (a port in use), the collector's endpoint.
				all, err := scenes.Load(sf.dir)
				if err != nil {
					return badinput.Wrap(err)
				}
				sc, err := scenes.Find(all, scene)
				if err != nil {
					return badinput.Wrap(err)
				}
				set = sc.Settings
				if sf.mode != "" {
					mode, err := scenes.ParseMode(sf.mode)
					if err != nil {
						return badinput.Errorf("--mode %w", err)
					}
					set.Mode = mode
				}
				if broker.Kind != deploy.BrokerInProcess && (set.Mode != scenes.Outbox || otlp != "") {
					return badinput.Errorf("--broker %s runs the outbox pipeline for real, without the simulator: --mode %s and --otlp go with --broker inprocess", brokerFlag, set.Mode)
				}
				// A --broker URL that does not answer is said loudly once
				// the deployment starts, and does not stop it: the API
				// takes payments into the outbox meanwhile.
				if e, err = httpapi.Listen(httpAddr); err != nil {
					return err
				}
				defer e.Close()
			} else if otlp != "" || sf.mode != "" || broker.Kind != deploy.BrokerInProcess {
				return badinput.New("--otlp, --mode and --broker go with --http: without it serve only keeps PostgreSQL up")
			}
			ctx, stop := signalContext()
			defer stop()
			srv, err := pg.Boot(ctx, pf.options())
			if err != nil {
				return err
			}
			printFacts(stdout, srv.Facts())
			switch {
			case e == nil:
				fmt.Fprintf(stdout, "%-10s %s\n", "url:", srv.URL())
				// The simulator's tables are in databases of their own, one per
				// pipeline, as its last session left them.
				for _, kind := range pg.PipelineKinds() {
					fmt.Fprintf(stdout, "%-10s psql '%s'\n", kind+":", srv.DatabaseURL(pg.NamespaceOf(ui.DefaultDBPrefix).Database(kind)))
				}
				fmt.Fprintln(stdout, "serving; Ctrl-C stops the server")
				<-ctx.Done()
			case broker.Kind != deploy.BrokerInProcess:
				if err := serveDeployed(ctx, srv, e, set, choice, stdout, logger); err != nil {
					_ = srv.Stop()
					return err
				}
			default:
				err := wallsim.RunServe(ctx, wallsim.Serve{Server: srv, Edge: simhttp.On(e), Settings: set, Seed: sf.seed, OTLP: otlp, Out: stdout, Errs: stderr})
				if err != nil {
					_ = srv.Stop()
					return err
				}
			}
			if err := srv.Stop(); err != nil {
				return fmt.Errorf("stop: %w", err)
			}
			fmt.Fprintln(stdout, "stopped")
			return nil
		},
	}
	fs := cmd.Flags()
	pf.register(fs)
	fs.StringVar(&httpAddr, "http", "", "also run a simulation live, in real time, and serve its HTTP API at `HOST:PORT` (no host: loopback): POST /payments, GET /payments/{id}, GET /metrics")
	fs.StringVar(&scene, "scene", "two-consumers", "with --http: the scene whose settings the live simulation runs (its actors; never its script)")
	sf.register(fs)
	fs.StringVar(&otlp, "otlp", "", "with --http: send the actors' OpenTelemetry spans to this OTLP/HTTP `ENDPOINT`")
	fs.StringVar(&brokerFlag, "broker", "inprocess", "with --http: `inprocess` (the simulator's broker, virtual clock), nats (JetStream embedded, store under the data dir) or nats://HOST:PORT[,nats://HOST:PORT…] (a server or a cluster); with JetStream the engine runs for real, in real time, and keeps its database and stream across restarts (--fresh empties both)")
	fs.IntVar(&replicas, "replicas", 0, "with --broker nats://…: how many servers hold a copy of the stream, `N` 1 to 5 (default: 3 on a cluster of three servers or more, else 1); a stream with another count is updated in place")
	fs.StringVar(&logFormat, "log-format", "text", "with --broker nats…: the log's format on stderr, `text` or json (log/slog: a line per change of state)")
	fs.StringVar(&stream, "stream", "", "with --broker nats…: the stream's `NAME` (default OUTBOXLAB_LIVE_<ID>, after the identity the deployment's database keeps); a stream another deployment owns is refused")
	completeFlags(cmd)
	wrapFlagHelp(cmd)
	return cmd
}

// serveDeployed runs the outbox pipeline for real behind e until ctx ends
// (launch.Start), saying on stdout where and how to feed it.
func serveDeployed(ctx context.Context, srv *pg.Server, e *httpapi.Listener, set scenes.Settings, c launch.Choice, stdout io.Writer, logger *slog.Logger) error {
	set.Workers = max(set.Workers, 2) // live's deployment, so the actors live shows (accounting-2) are /faults' here too
	cfg, err := deployConfig(set, c, "outboxlab serve", func(err error) { logger.Error("actor ended", "error", err.Error()) })
	if err != nil {
		return err
	}
	cfg.Logger = logger
	d, err := launch.Start(ctx, srv, e, cfg)
	if err != nil {
		return err
	}
	defer d.Stop()
	fmt.Fprintf(stdout, "%-10s %s\n", "broker:", d.JS.Where)
	s, ok := d.StreamSettings()
	switch {
	case ok:
		fmt.Fprintf(stdout, "%-10s %s\n", "stream:", launch.StreamLine(s))
	case d.Answered:
		fmt.Fprintf(stdout, "%-10s THE STREAM CANNOT BE OPENED NOW: the broker answers at %s, not for the stream (%v).\n", "", c.Broker, d.Away)
		fmt.Fprintf(stdout, "%-10s %s\n", "", "payments are taken all the same and wait in the outbox; the stream is opened and the")
		fmt.Fprintf(stdout, "%-10s %s\n", "", "relays and consumers start once it can (the log says when): a cluster without its quorum answers so.")
	default:
		fmt.Fprintf(stdout, "%-10s NOBODY ANSWERS at %s (%v).\n", "", c.Broker, d.Away)
		fmt.Fprintf(stdout, "%-10s %s\n", "", "payments are taken all the same and wait in the outbox; the stream is opened and the")
		fmt.Fprintf(stdout, "%-10s %s\n", "", "relays and consumers start once it answers (the log says when). A typo in --broker looks like this too.")
	}
	fmt.Fprintf(stdout, "%-10s %s\n", "", "the engine runs for real, in real time: relays woken by LISTEN/NOTIFY, consumers pulling, acks after commit")
	fmt.Fprintf(stdout, "%-10s %s\n", "", "(the step-by-step simulator keeps the in-process broker: only it waits on a virtual clock)")
	fmt.Fprintf(stdout, "%-10s psql '%s'\n", "outbox:", d.DBURL)
	fmt.Fprintf(stdout, "%-10s %s\n", "", d.State)
	fmt.Fprintf(stdout, "%-10s http://%s\n", "api:", e.Addr)
	for _, c := range e.Curl() {
		lead := "try:"
		if strings.HasPrefix(c, " ") {
			lead = ""
		}
		fmt.Fprintf(stdout, "%-10s %s\n", lead, c)
	}
	fmt.Fprintf(stdout, "%-10s curl -X POST %s/faults/crash/relay-1   (also: /faults/stall/accounting?for=45s", "faults:", e.Addr)
	if d.JS.Server != nil {
		fmt.Fprint(stdout, ", /faults/broker/stop, /faults/broker/start")
	}
	fmt.Fprintln(stdout, ")")
	fmt.Fprintln(stdout, "serving; Ctrl-C stops")
	<-ctx.Done()
	return nil
}
