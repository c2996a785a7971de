package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/deployui"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
)

// liveScene is the scene whose settings a live deployment runs (its actors,
// lease, AckWait; never its script).
const liveScene = "two-consumers"

// liveScreen is `outboxlab live`: the outbox pipeline running for real on
// JetStream (startDeployed, as serve --broker runs it), shown live on the
// terminal; with --http its API, faults and /metrics are served too.
func liveScreen(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("live", stderr)
	var pf pgFlags
	pf.register(fs)
	brokerFlag := fs.String("broker", "nats", "`nats` (JetStream embedded, store under the data dir) or nats://HOST:PORT[,nats://HOST:PORT…] (a server or a cluster); the in-process broker is the simulator's")
	replicas := fs.Int("replicas", 0, "with --broker nats://…: how many servers hold a copy of the stream, `N` 1 to 5 (default: 3 on a cluster of three servers or more, else 1)")
	httpAddr := fs.String("http", "", "also serve the deployment's HTTP API at `HOST:PORT` (no host: loopback): POST /payments, GET /payments/{id}, /faults/…, GET /metrics")
	lang := fs.String("lang", "", "the screen's language: en or es (default: from LC_ALL or LANG)")
	if err := parse(fs, args); err != nil {
		return exitUsage
	}
	fail := func(err error, code int) int {
		fmt.Fprintf(stderr, "outboxlab live: %v\n", err)
		return code
	}
	broker, err := deploy.ParseBroker(*brokerFlag)
	if err != nil {
		return fail(err, exitUsage)
	}
	if broker.Kind == deploy.BrokerInProcess {
		return fail(errors.New("--broker inprocess: the in-process broker runs on the simulator's virtual clock, which waits for you; live runs in real time. Use the simulator (outboxlab) for it, or --broker nats here"), exitUsage)
	}
	df := deployFlags{broker: broker, replicas: *replicas, fresh: pf.fresh}
	if err := df.checkReplicas(); err != nil {
		return fail(err, exitUsage)
	}
	l, err := langFlag(*lang)
	if err != nil {
		return fail(err, exitUsage)
	}
	all, err := scenes.Load("")
	if err != nil {
		return fail(err, exitFail)
	}
	sc, err := scenes.Find(all, liveScene)
	if err != nil {
		return fail(err, exitFail)
	}
	set := sc.Settings
	// Two accounting workers: a stall past AckWait then shows JetStream
	// delivering again to the other, and the inbox absorbing it.
	set.Workers = max(set.Workers, 2)
	if err := deploy.Probe(broker); err != nil {
		return fail(err, exitUsage)
	}
	var e *httpapi.Listener
	if *httpAddr != "" {
		if e, err = httpapi.Listen(*httpAddr); err != nil {
			return fail(err, exitUsage)
		}
		defer e.Close()
	}
	ctx, stop := signalContext()
	defer stop()
	fmt.Fprintln(stdout, "outboxlab live: "+catalog.For(l).T("booting PostgreSQL…"))
	srv, err := pg.Boot(ctx, pf.options(nil))
	if err != nil {
		return fail(err, bootExit(err))
	}
	// The actors' ends are on screen (crashed, restarting): nothing is
	// written to a terminal the screen owns.
	d, code, err := startDeployed(ctx, srv, e, set, df, "outboxlab live", nil)
	if err != nil {
		_ = srv.Stop()
		return fail(err, code)
	}
	// Said before the screen takes the terminal, and still there once it
	// gives it back: where the payments are, and what this start kept.
	fmt.Fprintf(stdout, "outboxlab live: psql '%s'\n", d.DBURL)
	fmt.Fprintf(stdout, "outboxlab live: %s\n", d.State)
	fmt.Fprintf(stdout, "outboxlab live: stream %s\n", streamLine(d.JS.Settings()))
	addr := ""
	if e != nil {
		addr = e.Addr
	}
	url := ""
	if broker.Kind == deploy.BrokerNATSURL {
		url = d.JS.Conn.ConnectedUrlRedacted()
	}
	runErr := deployui.Run(ctx, deployui.Options{Deployment: d.Deployment, PsqlURL: d.DBURL, BrokerURL: url, HTTP: addr, Lang: l})
	d.Stop()
	if err := srv.Stop(); err != nil {
		return fail(fmt.Errorf("stop PostgreSQL: %w", err), exitFail)
	}
	if runErr != nil {
		return fail(runErr, exitFail)
	}
	return exitOK
}
