package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/edge"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
)

// deployed is the outbox pipeline running for real (serve --broker nats,
// live): the deployment's handle, its broker, and what to undo when it ends.
type deployed struct {
	*deploy.Deployment
	JS     *deploy.JetStream
	DBURL  string // the pipeline's database, for psql
	cancel context.CancelFunc
	undo   []func() // in reverse order, after the actors ended
}

// Stop ends the actors, waits for them, and releases the broker and the
// database this run made for itself.
func (d *deployed) Stop() {
	d.cancel()
	if d.Deployment != nil {
		d.Deployment.Wait()
	}
	for _, f := range slices.Backward(d.undo) {
		f()
	}
}

// startDeployed runs the outbox pipeline for real on srv until ctx ends or
// Stop: the engine on the system clock, its relays and consumers on
// JetStream (embedded, or at the URL broker names), no simulator, the API
// (with its faults and /metrics) on e if e is not nil. code is the exit
// code of an error: a URL that does not answer is bad input (exit 2).
func startDeployed(ctx context.Context, srv *pg.Server, e *edge.Edge, set scenes.Settings, broker deploy.BrokerChoice, onError func(error)) (d *deployed, code int, err error) {
	ctx, cancel := context.WithCancel(ctx)
	d = &deployed{cancel: cancel}
	defer func() {
		if err != nil {
			d.Stop()
			d = nil
		}
	}()
	prefix, storeDir := "live", ""
	if srv.DataDir != "" && srv.SharedWith == "" {
		storeDir = filepath.Join(srv.DataDir, pg.BrokerDir)
	}
	if srv.SharedWith != "" || srv.External() {
		// A server outboxlab did not boot here: a database, and a store, of this run's own.
		prefix = fmt.Sprintf("live%d", os.Getpid())
		d.undo = append(d.undo, func() {
			dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = srv.DropDatabase(dctx, prefix+"_outbox")
		})
	}
	if storeDir == "" && broker.Kind == deploy.BrokerNATS {
		state, err := pg.DefaultStateDir()
		if err != nil {
			return d, exitUsage, err
		}
		storeDir = filepath.Join(state, fmt.Sprintf("%s-%d", pg.BrokerDir, os.Getpid()))
		d.undo = append(d.undo, func() { os.RemoveAll(storeDir) })
	}
	db := prefix + "_outbox"
	d.DBURL = srv.DatabaseURL(db)
	if err := srv.CreateDatabase(ctx, db); err != nil {
		return d, exitFail, err
	}
	// The stream is named after the database: two serves on one NATS each
	// have their own stream and consumers.
	j, err := deploy.OpenJetStream(ctx, broker, storeDir, jetstream.Config{Pipeline: prefix, AckWait: set.AckTimeout})
	if err != nil {
		code := exitFail
		if broker.Kind == deploy.BrokerNATSURL {
			code = exitUsage // the URL the learner typed does not answer
		}
		return d, code, fmt.Errorf("--broker %s: %w", broker, err)
	}
	d.JS = j
	d.undo = append(d.undo, j.Close)
	if broker.Kind == deploy.BrokerNATSURL {
		// A NATS outboxlab does not run: leave no stream on it.
		d.undo = append(d.undo, func() {
			dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = j.Broker.DeleteStream(dctx)
		})
	}
	strategy, err := engine.ParseStrategy(set.Consumer)
	if err != nil {
		return d, exitUsage, err
	}
	d.Deployment, err = deploy.Launch(ctx, deploy.Options{
		DatabaseURL: srv.DatabaseURL(db), Broker: j.Broker, Edge: e, Server: j.Server,
		Relays: set.Relays, Workers: set.Workers, Strategy: strategy,
		Relay:   engine.RelayConfig{Lease: set.Lease, BatchSize: set.Batch, MaxAttempts: set.MaxAttempts},
		OnError: onError,
	})
	if err != nil {
		return d, exitFail, err
	}
	return d, exitOK, nil
}

// serveDeployed runs the outbox pipeline for real behind e until ctx ends
// (startDeployed), saying on stdout where and how to feed it.
func serveDeployed(ctx context.Context, srv *pg.Server, e *edge.Edge, set scenes.Settings, broker deploy.BrokerChoice, stdout, stderr io.Writer) int {
	fail := func(err error, code int) int {
		fmt.Fprintf(stderr, "outboxlab serve: %v\n", err)
		return code
	}
	set.Workers = max(set.Workers, 2) // live's deployment, so the actors live shows (accounting-2) are /faults' here too
	d, code, err := startDeployed(ctx, srv, e, set, broker, func(err error) { fmt.Fprintf(stderr, "outboxlab serve: %v\n", err) })
	if err != nil {
		return fail(err, code)
	}
	defer d.Stop()
	fmt.Fprintf(stdout, "%-10s %s\n", "broker:", d.JS.Where)
	fmt.Fprintf(stdout, "%-10s %s\n", "", "the engine runs for real, in real time: relays woken by LISTEN/NOTIFY, consumers pulling, acks after commit")
	fmt.Fprintf(stdout, "%-10s %s\n", "", "(the step-by-step simulator keeps the in-process broker: only it waits on a virtual clock)")
	fmt.Fprintf(stdout, "%-10s psql '%s'\n", "outbox:", d.DBURL)
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
