package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/edge"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
)

// serveDeployed runs the outbox pipeline for real behind e until ctx ends:
// the engine on the system clock, its relays and consumers on JetStream
// (embedded, or at the URL broker names), no simulator. A URL that does not
// answer is bad input (exit 2).
func serveDeployed(ctx context.Context, srv *pg.Server, e *edge.Edge, set scenes.Settings, broker deploy.BrokerChoice, stdout, stderr io.Writer) int {
	fail := func(err error, code int) int {
		fmt.Fprintf(stderr, "outboxlab serve: %v\n", err)
		return code
	}
	prefix, storeDir := "live", ""
	if srv.DataDir != "" && srv.SharedWith == "" {
		storeDir = filepath.Join(srv.DataDir, pg.BrokerDir)
	}
	if srv.SharedWith != "" || srv.External() {
		// A server outboxlab did not boot here: a database, and a store, of this run's own.
		prefix = fmt.Sprintf("live%d", os.Getpid())
		defer func() {
			dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = srv.DropDatabase(dctx, prefix+"_outbox")
		}()
	}
	if storeDir == "" && broker.Kind == deploy.BrokerNATS {
		state, err := pg.DefaultStateDir()
		if err != nil {
			return fail(err, exitUsage)
		}
		storeDir = filepath.Join(state, fmt.Sprintf("%s-%d", pg.BrokerDir, os.Getpid()))
		defer os.RemoveAll(storeDir)
	}
	db := prefix + "_outbox"
	if err := srv.CreateDatabase(ctx, db); err != nil {
		return fail(err, exitFail)
	}
	// The stream is named after the database: two serves on one NATS each
	// have their own stream and consumers.
	j, err := deploy.OpenJetStream(ctx, broker, storeDir, jetstream.Config{Pipeline: prefix, AckWait: set.AckTimeout})
	if err != nil {
		code := exitFail
		if broker.Kind == deploy.BrokerNATSURL {
			code = exitUsage // the URL the learner typed does not answer
		}
		return fail(fmt.Errorf("--broker %s: %w", broker, err), code)
	}
	defer j.Close()
	if broker.Kind == deploy.BrokerNATSURL {
		// A NATS outboxlab does not run: leave no stream on it.
		defer func() {
			dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = j.Broker.DeleteStream(dctx)
		}()
	}
	strategy, err := engine.ParseStrategy(set.Consumer)
	if err != nil {
		return fail(err, exitUsage)
	}
	fmt.Fprintf(stdout, "%-10s %s\n", "broker:", j.Where)
	fmt.Fprintf(stdout, "%-10s %s\n", "", "the engine runs for real, in real time: relays woken by LISTEN/NOTIFY, consumers pulling, acks after commit")
	fmt.Fprintf(stdout, "%-10s %s\n", "", "(the step-by-step simulator keeps the in-process broker: only it waits on a virtual clock)")
	fmt.Fprintf(stdout, "%-10s psql '%s'\n", "outbox:", srv.DatabaseURL(db))
	fmt.Fprintf(stdout, "%-10s http://%s\n", "api:", e.Addr)
	for _, c := range e.Curl()[:2] { // the third is /metrics, a simulation's
		lead := "try:"
		if strings.HasPrefix(c, " ") {
			lead = ""
		}
		fmt.Fprintf(stdout, "%-10s %s\n", lead, c)
	}
	fmt.Fprintf(stdout, "%-10s curl -X POST %s/faults/crash/relay-1   (also: /faults/stall/accounting?for=45s", "faults:", e.Addr)
	if j.Server != nil {
		fmt.Fprint(stdout, ", /faults/broker/stop, /faults/broker/start")
	}
	fmt.Fprintln(stdout, ")")
	fmt.Fprintln(stdout, "serving; Ctrl-C stops")
	err = deploy.Run(ctx, deploy.Options{
		DatabaseURL: srv.DatabaseURL(db), Broker: j.Broker, Edge: e, Server: j.Server,
		Relays: set.Relays, Workers: set.Workers, Strategy: strategy,
		Relay:   engine.RelayConfig{Lease: set.Lease, BatchSize: set.Batch, MaxAttempts: set.MaxAttempts},
		OnError: func(err error) { fmt.Fprintf(stderr, "outboxlab serve: %v\n", err) },
	})
	if err != nil {
		return fail(err, exitFail)
	}
	return exitOK
}
