package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
)

// deployPipeline names a deployment's database (deployPipeline_outbox) and
// its stream (OUTBOXLAB_LIVE). It is the same on every server, ours,
// shared or the user's, so that a deployment started again finds its outbox
// and its stream and carries on; Claim keeps a second deployment off it.
const deployPipeline = "live"

// deployDB is the database that holds a deployment's payments.
const deployDB = deployPipeline + "_outbox"

// deployFlags are what serve --broker and live take beside the database
// flags: which broker, how many replicas of its stream, and whether to
// start over.
type deployFlags struct {
	broker   deploy.BrokerChoice
	replicas int  // 0: jetstream.DefaultReplicas
	fresh    bool // --fresh: empty the database and the stream
}

// checkReplicas refuses a --replicas the broker cannot have, before
// anything boots.
func (f deployFlags) checkReplicas() error {
	switch {
	case f.replicas < 0 || f.replicas > 5:
		return fmt.Errorf("--replicas %d: want 1 to 5 (JetStream's limit), or leave it out: 3 on a cluster of three servers or more, else 1", f.replicas)
	case f.replicas > 1 && f.broker.Kind == deploy.BrokerNATS:
		return fmt.Errorf("--replicas %d: the embedded JetStream is one server, which holds one copy; give the URLs of a cluster (--broker nats://a:4222,nats://b:4222,nats://c:4222) for more", f.replicas)
	}
	return nil
}

// deployed is the outbox pipeline running for real (serve --broker nats,
// live): the deployment's handle, its broker, and what to undo when it ends.
type deployed struct {
	*deploy.Deployment
	JS    *deploy.JetStream
	DBURL string // the pipeline's database, for psql
	// State says what the start found or did to the database and the
	// stream: emptied on purpose (--fresh), made, or kept and carried on.
	State  string
	cancel context.CancelFunc
	undo   []func() // in reverse order, after the actors ended
}

// Stop ends the actors, waits for them, and releases the broker and the
// database's claim. Nothing is dropped or deleted: a deployment started
// again carries on from what they hold.
func (d *deployed) Stop() {
	d.cancel()
	if d.Deployment != nil {
		d.Deployment.Wait()
	}
	for _, f := range slices.Backward(d.undo) {
		f()
	}
}

// storeDir is where the embedded JetStream keeps its files: beside the
// cluster in the data directory (also when that data directory's server is
// another outboxlab's: the claim on the database keeps two deployments
// off one store), or, for a server given by --database-url, a directory of
// the state directory named after that database, so that a restart on the
// same database finds the same stream.
func storeDir(srv *pg.Server) (string, error) {
	if srv.DataDir != "" {
		return filepath.Join(srv.DataDir, pg.BrokerDir), nil
	}
	state, err := pg.DefaultStateDir()
	if err != nil {
		return "", err
	}
	u, err := url.Parse(srv.DatabaseURL(deployDB))
	if err != nil {
		return "", fmt.Errorf("the database's URL: %w", err)
	}
	sum := sha256.Sum256([]byte(u.User.Username() + "@" + u.Host + u.Path))
	return filepath.Join(state, pg.BrokerDir+"-"+hex.EncodeToString(sum[:6])), nil
}

// startDeployed runs the outbox pipeline for real on srv until ctx ends or
// Stop: the engine on the system clock, its relays and consumers on
// JetStream (embedded, or at the URL f names), no simulator, the API (with
// its faults and /metrics) on e if e is not nil. It opens the deployment's
// database and stream as the last run left them (pending rows are then
// published, a key already used replays), unless f.fresh empties both.
// code is the exit code of an error: a URL that does not answer is bad
// input (exit 2).
func startDeployed(ctx context.Context, srv *pg.Server, e *httpapi.Listener, set scenes.Settings, f deployFlags, who string, onError func(error)) (d *deployed, code int, err error) {
	ctx, cancel := context.WithCancel(ctx)
	d = &deployed{cancel: cancel, DBURL: srv.DatabaseURL(deployDB)}
	defer func() {
		if err != nil {
			d.Stop()
			d = nil
		}
	}()
	created, err := srv.OpenDatabase(ctx, deployDB)
	if errors.Is(err, pg.ErrSchemaHistory) {
		if !f.fresh {
			return d, exitUsage, fmt.Errorf("%w: --fresh empties it and starts over", err)
		}
		if err = srv.DropDatabase(ctx, deployDB); err == nil {
			created, err = srv.OpenDatabase(ctx, deployDB)
		}
	}
	if err != nil {
		return d, exitFail, err
	}
	release, err := deploy.Claim(ctx, d.DBURL, fmt.Sprintf("%s pid %d", who, os.Getpid()))
	if err != nil {
		return d, exitFail, fmt.Errorf("database %s: %w", deployDB, err)
	}
	d.undo = append(d.undo, release)
	if f.fresh && !created {
		if err := emptyDatabase(ctx, d.DBURL); err != nil {
			return d, exitFail, err
		}
	}
	dir := ""
	if f.broker.Kind == deploy.BrokerNATS {
		if dir, err = storeDir(srv); err != nil {
			return d, exitFail, err
		}
	}
	// A database made now owes nothing: a stream left from one that is gone
	// (a cluster started over, another server) would deliver events it
	// never wrote. Otherwise the stream is kept, its messages owed.
	j, err := deploy.OpenJetStream(ctx, f.broker, dir, jetstream.Config{Pipeline: deployPipeline, AckWait: set.AckTimeout,
		Replicas: f.replicas, Fresh: f.fresh || created})
	if err != nil {
		code := exitFail
		if f.broker.Kind == deploy.BrokerNATSURL {
			code = exitUsage // the URL the learner typed does not answer, or its cluster is too small
		}
		return d, code, fmt.Errorf("--broker %s: %w", f.broker, err)
	}
	d.JS = j
	d.undo = append(d.undo, j.Close)
	switch {
	case f.fresh:
		d.State = fmt.Sprintf("--fresh: database %s and stream %s emptied on purpose; starting over", deployDB, j.Stream())
	case created:
		d.State = fmt.Sprintf("database %s made, stream %s opened empty", deployDB, j.Stream())
	default:
		if d.State, err = keptState(ctx, d.DBURL, j); err != nil {
			return d, exitFail, err
		}
	}
	strategy, err := engine.ParseStrategy(set.Consumer)
	if err != nil {
		return d, exitUsage, err
	}
	d.Deployment, err = deploy.Launch(ctx, deploy.Options{
		DatabaseURL: d.DBURL, Broker: j.Broker, HTTP: e, Server: j.Server,
		Relays: set.Relays, Workers: set.Workers, Strategy: strategy,
		Relay:   engine.RelayConfig{Lease: set.Lease, BatchSize: set.Batch, MaxAttempts: set.MaxAttempts},
		OnError: onError,
	})
	if err != nil {
		return d, exitFail, err
	}
	return d, exitOK, nil
}

// emptyDatabase empties the deployment's tables (--fresh on a database
// that exists; the claim keeps any other deployment off it meanwhile).
func emptyDatabase(ctx context.Context, dbURL string) error {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("--fresh: %w", err)
	}
	defer pool.Close()
	if err := pg.Reset(ctx, pool); err != nil {
		return fmt.Errorf("--fresh: database %s: %w", deployDB, err)
	}
	return nil
}

// keptState says what a start found from the last run: its payments, the
// rows still owed to the broker (the relays publish them now) and the
// messages the stream still owes the consumers.
func keptState(ctx context.Context, dbURL string, j *deploy.JetStream) (string, error) {
	payments, pending, err := deploy.Kept(ctx, dbURL)
	if err != nil {
		return "", fmt.Errorf("database %s: %w", deployDB, err)
	}
	owed := "?"
	if in, err := j.Info(ctx); err == nil {
		owed = fmt.Sprint(in.Messages)
	}
	return fmt.Sprintf("carrying on from the last run: %d payments, %d outbox rows to publish, %s messages in stream %s (--fresh starts over)",
		payments, pending, owed, j.Stream()), nil
}

// streamLine states the stream's settings: what a replica, the window and
// AckWait promise.
func streamLine(s jetstream.StreamSettings) string {
	copies := "1 replica"
	if s.Replicas > 1 {
		copies = fmt.Sprintf("%d replicas", s.Replicas)
	}
	if s.Cluster != "" {
		copies += fmt.Sprintf(" on cluster %s (leader %s", s.Cluster, s.Leader)
		if len(s.Peers) > 0 {
			copies += "; copies on " + strings.Join(s.Peers, ", ")
		}
		copies += ")"
	}
	return fmt.Sprintf("%s: %s, %s retention, dedup window %s, AckWait %s",
		s.Name, copies, s.Retention, s.Duplicates, s.AckWait)
}

// serveDeployed runs the outbox pipeline for real behind e until ctx ends
// (startDeployed), saying on stdout where and how to feed it.
func serveDeployed(ctx context.Context, srv *pg.Server, e *httpapi.Listener, set scenes.Settings, f deployFlags, stdout, stderr io.Writer) int {
	fail := func(err error, code int) int {
		fmt.Fprintf(stderr, "outboxlab serve: %v\n", err)
		return code
	}
	set.Workers = max(set.Workers, 2) // live's deployment, so the actors live shows (accounting-2) are /faults' here too
	d, code, err := startDeployed(ctx, srv, e, set, f, "outboxlab serve", func(err error) { fmt.Fprintf(stderr, "outboxlab serve: %v\n", err) })
	if err != nil {
		return fail(err, code)
	}
	defer d.Stop()
	fmt.Fprintf(stdout, "%-10s %s\n", "broker:", d.JS.Where)
	fmt.Fprintf(stdout, "%-10s %s\n", "stream:", streamLine(d.JS.Settings()))
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
	return exitOK
}
