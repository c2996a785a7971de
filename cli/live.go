package cli

import (
	"fmt"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/deploy/launch"
	"github.com/outboxlab/outboxlab/deployui"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/spf13/cobra"
)

// liveScene is the scene whose settings a live deployment runs (its actors,
// lease, AckWait; never its script).
const liveScene = "two-consumers"

// newLive is `outboxlab live`: the outbox pipeline running for real on
// JetStream (launch.Start, as serve --broker runs it), shown live on the
// terminal; with --http its API, faults and /metrics are served too.
func newLive() *cobra.Command {
	var (
		pf                         pgFlags
		brokerFlag, httpAddr, lang string
		stream                     string
		replicas                   int
	)
	cmd := &cobra.Command{
		Use:   "live",
		Short: "the engine running for real on JetStream, live on screen",
		Long: `the engine running for real on JetStream, live on screen: post
payments, crash or stall an actor, stop and start the broker;
--http also serves its API, faults and /metrics; kept across
restarts like serve --broker's (--fresh empties it)`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stdout := cmd.OutOrStdout()
			broker, err := deploy.ParseBroker(brokerFlag)
			if err != nil {
				return badinput.Wrap(err)
			}
			if broker.Kind == deploy.BrokerInProcess {
				return badinput.New("--broker inprocess: the in-process broker runs on the simulator's virtual clock, which waits for you; live runs in real time. Use the simulator (outboxlab) for it, or --broker nats here")
			}
			choice := launch.Choice{Broker: broker, Replicas: replicas, Fresh: pf.fresh, Stream: stream}
			if err := choice.Check(); err != nil {
				return err
			}
			l, err := langFlag(lang)
			if err != nil {
				return err
			}
			all, err := scenes.Load("")
			if err != nil {
				return err
			}
			sc, err := scenes.Find(all, liveScene)
			if err != nil {
				return err
			}
			set := sc.Settings
			// Two accounting workers: a stall past AckWait then shows JetStream
			// delivering again to the other, and the inbox absorbing it.
			set.Workers = max(set.Workers, 2)
			cfg, err := deployConfig(set, choice, "outboxlab live", nil)
			if err != nil {
				return err
			}
			var e *httpapi.Listener
			if httpAddr != "" {
				if e, err = httpapi.Listen(httpAddr); err != nil {
					return err
				}
				defer e.Close()
			}
			ctx, stop := signalContext()
			defer stop()
			fmt.Fprintln(stdout, "outboxlab live: "+catalog.For(l).T("booting PostgreSQL…"))
			srv, err := pg.Boot(ctx, pf.options())
			if err != nil {
				return err
			}
			// The actors' ends are on screen (crashed, restarting): nothing is
			// written to a terminal the screen owns.
			d, err := launch.Start(ctx, srv, e, cfg)
			if err != nil {
				_ = srv.Stop()
				return err
			}
			// Said before the screen takes the terminal, and still there once it
			// gives it back: where the payments are, and what this start kept.
			fmt.Fprintf(stdout, "outboxlab live: psql '%s'\n", d.DBURL)
			fmt.Fprintf(stdout, "outboxlab live: %s\n", d.State)
			if s, ok := d.StreamSettings(); ok {
				fmt.Fprintf(stdout, "outboxlab live: stream %s\n", launch.StreamLine(s))
			} else if d.Answered {
				fmt.Fprintf(stdout, "outboxlab live: THE STREAM CANNOT BE OPENED NOW: the broker answers at %s, not for the stream (%v): payments wait in the outbox until it can\n", broker, d.Away)
			} else {
				fmt.Fprintf(stdout, "outboxlab live: NOBODY ANSWERS at %s (%v): payments wait in the outbox until it answers\n", broker, d.Away)
			}
			addr := ""
			if e != nil {
				addr = e.Addr
			}
			url := ""
			if broker.Kind == deploy.BrokerNATSURL {
				url = broker.URL
				if d.JS.Conn.IsConnected() {
					url = d.JS.Conn.ConnectedUrlRedacted()
				}
			}
			runErr := deployui.Run(ctx, deployui.Options{Deployment: d.Deployment, PsqlURL: d.DBURL, BrokerURL: url, HTTP: addr, Lang: l})
			d.Stop()
			if err := srv.Stop(); err != nil {
				return fmt.Errorf("stop PostgreSQL: %w", err)
			}
			return runErr
		},
	}
	fs := cmd.Flags()
	pf.register(fs)
	fs.StringVar(&brokerFlag, "broker", "nats", "`nats` (JetStream embedded, store under the data dir) or nats://HOST:PORT[,nats://HOST:PORT…] (a server or a cluster); the in-process broker is the simulator's")
	fs.IntVar(&replicas, "replicas", 0, "with --broker nats://…: how many servers hold a copy of the stream, `N` 1 to 5 (default: 3 on a cluster of three servers or more, else 1)")
	fs.StringVar(&stream, "stream", "", "the stream's `NAME` (default OUTBOXLAB_LIVE_<ID>, after the identity the deployment's database keeps); a stream another deployment owns is refused")
	fs.StringVar(&httpAddr, "http", "", "also serve the deployment's HTTP API at `HOST:PORT` (no host: loopback): POST /payments, GET /payments/{id}, /faults/…, GET /metrics")
	fs.StringVar(&lang, "lang", "", "the screen's language: en or es (default: from LC_ALL or LANG)")
	completeFlags(cmd)
	wrapFlagHelp(cmd)
	return cmd
}
