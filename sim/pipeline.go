package sim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/scenes"
)

// Pipeline is one delivery chain on its own database and broker: "outbox"
// (api → outbox → relays → broker → inbox consumers) or "naive" (the dual
// write → broker → the same consumers). Compare mode runs both, fed the same
// requests and faults.
type Pipeline struct {
	Kind string // "naive" or "outbox"

	sim      *Sim
	dbh      *database
	db       string
	pool     *pgxpool.Pool // the simulator's own connections: oracle, tables, maintenance
	broker   *engine.Broker
	counters *engine.Counters
	runners  []*runner
	byName   map[string]*runner
	workers  map[string]uuid.UUID // each relay's worker id, its latest life's
	// provider is the card provider accounting charges (S19), nil when the
	// scene has no external effect.
	provider engine.Provider
	// cdc holds each CDC relay as it runs now (a restart replaces it): its
	// replication stream is ended when the run stops.
	cdc map[string]*engine.Relay

	requests []request          // waiting for the api (or naive) actor
	lastReq  *request           // for resend
	keyed    map[string]request // the latest request sent with each Idempotency-Key
	replies  []response         // what the API answered
}

// request is one operation a client sends: a payment, or the capture of an
// earlier one (a second event of the same aggregate).
type request struct {
	req          engine.PaymentRequest
	ticket       int // the HTTP request waiting for the answer (0: none)
	poison       bool
	capture      uuid.UUID
	captureEvent uuid.UUID
}

type response struct {
	resp engine.PaymentResponse
	err  error
}

// topic is where every pipeline's payment events go.
const topic = engine.TopicPayments

// consumerNames are the consumers every pipeline runs (S6).
var consumerNames = []string{"accounting", "notifications"}

func newPipeline(ctx context.Context, s *Sim, kind string) (*Pipeline, error) {
	p := &Pipeline{Kind: kind, sim: s, counters: &engine.Counters{}, byName: map[string]*runner{}, keyed: map[string]request{},
		cdc: map[string]*engine.Relay{}}
	d, err := s.database(ctx, kind)
	if err != nil {
		return nil, fmt.Errorf("%s pipeline: %w", kind, err)
	}
	p.dbh, p.db, p.pool = d, d.name, d.pool
	set := s.settings
	if set.Effect != "" {
		srv, err := d.cardProvider(s.clock)
		if err != nil {
			return nil, fmt.Errorf("%s pipeline: %w", kind, err)
		}
		p.provider = engine.HTTPProvider{URL: srv.URL()}
	}
	p.broker = engine.NewBroker(engine.BrokerConfig{Clock: s.clock, Hook: hook, AckTimeout: set.AckTimeout, OrderByKey: set.OrderByKey,
		DedupWindow: set.DedupWindow})
	for _, c := range consumerNames {
		if err := p.broker.Subscribe(topic, c); err != nil {
			return nil, fmt.Errorf("subscribe %s: %w", c, err)
		}
	}
	for _, name := range set.Actors(kind) {
		switch {
		case name == "api" || name == "api-2":
			p.add(name, p.apiUnit(name))
		case name == "naive":
			p.add(name, p.naiveUnit())
		case strings.HasPrefix(name, "relay-"):
			p.addRelay(name)
		case name == scenes.Sender:
			if err := p.addSender(name); err != nil {
				return nil, err
			}
		case name == "accounting-2":
			// A second worker of the same consumer: same inbox key, its own process.
			p.addConsumer(name, "accounting")
		default:
			p.addConsumer(name, name)
		}
	}
	// A slot streams what commits after it is made, and making one waits
	// for open transactions: it is made now, before any request.
	for _, name := range slices.Sorted(maps.Keys(p.cdc)) {
		if err := p.cdc[name].OpenSlot(ctx); err != nil {
			return nil, fmt.Errorf("%s pipeline: %s: %w", kind, name, err)
		}
	}
	return p, nil
}

// endStreams closes the CDC relays' replication connections (their actors
// have stopped): the slots stay until the database is emptied or closed.
func (p *Pipeline) endStreams() {
	for _, r := range p.cdc {
		r.EndStream()
	}
}

// add starts an actor's goroutine. Its connections are the database's to
// take back when the run ends (database.reclaim).
func (p *Pipeline) add(name string, unit func(context.Context) (unitResult, error)) *runner {
	r := newRunner(p, name, unit)
	p.runners = append(p.runners, r)
	p.byName[name] = r
	p.sim.actors.Add(1)
	go func() {
		defer p.sim.actors.Done()
		r.loop(p.sim.ctx)
	}()
	return r
}

// connect gives an actor a connection of its own, named after the actor so
// that pg_stat_activity (and the lock-wait check) can tell actors apart:
// one an actor of an earlier run left idle, or a new one.
func (p *Pipeline) connect(actor string) engine.Connect {
	return func(ctx context.Context) (*pgx.Conn, error) { return p.dbh.lend(ctx, actor) }
}

// apiUnit is an API process (api, or api-2 with `writers: 2`): each takes the
// next request from the one queue, on a connection of its own.
func (p *Pipeline) apiUnit(name string) func(context.Context) (unitResult, error) {
	w := engine.NewWriter(engine.WriterConfig{Name: name, Connect: p.connect(name), Clock: p.sim.clock, Hook: hook, TracerProvider: p.sim.tracing.Provider})
	return func(ctx context.Context) (unitResult, error) {
		if len(p.requests) == 0 {
			return unitResult{idle: true}, nil
		}
		rq := p.requests[0]
		p.requests = p.requests[1:]
		if rq.capture != uuid.Nil {
			env, err := w.CapturePayment(ctx, rq.capture, rq.captureEvent, p.sim.traceParentFor(rq.capture))
			if err != nil {
				return unitResult{}, err
			}
			return unitResult{summary: text("api captured payment %s: event %s, aggregate version %d", short(rq.capture), short(env.ID), env.AggregateVersion)}, nil
		}
		resp, err := w.CreatePayment(ctx, rq.req)
		p.replies = append(p.replies, response{resp, err})
		p.answerHTTP(rq.ticket, resp, err)
		return unitResult{summary: answer(name, resp, err)}, err
	}
}

func (p *Pipeline) naiveUnit() func(context.Context) (unitResult, error) {
	n := engine.NewNaiveWriter(engine.NaiveWriterConfig{Name: "naive", Connect: p.connect("naive"), Clock: p.sim.clock, Hook: hook, Publisher: p.publisher(), TracerProvider: p.sim.tracing.Provider})
	return func(ctx context.Context) (unitResult, error) {
		if len(p.requests) == 0 {
			return unitResult{idle: true}, nil
		}
		rq := p.requests[0]
		p.requests = p.requests[1:]
		if rq.capture != uuid.Nil {
			// The naive writer only creates payments; a capture is an outbox lesson (S20).
			return unitResult{summary: text("naive skips the capture: the dual-write pipeline only creates payments")}, nil
		}
		var resp engine.PaymentResponse
		var err error
		if p.sim.settings.Naive == "publish-then-commit" {
			resp, err = n.PublishThenCommit(ctx, rq.req)
		} else {
			resp, err = n.CommitThenPublish(ctx, rq.req)
		}
		p.replies = append(p.replies, response{resp, err})
		p.answerHTTP(rq.ticket, resp, err)
		return unitResult{summary: answer("naive", resp, err)}, err
	}
}

func answer(actor string, resp engine.PaymentResponse, err error) Text {
	switch {
	case errors.Is(err, engine.ErrIdempotencyConflict):
		return text("%s answered 422: that Idempotency-Key was used with another body", actor)
	case errors.Is(err, engine.ErrAmbiguousCommit):
		return text("%s lost its connection during COMMIT: the client cannot know whether the payment exists (retry with the same key)", actor)
	case err != nil:
		return Text{}
	case resp.Replayed:
		return text("%s answered %d with the stored response for payment %s: nothing created", actor, resp.StatusCode, short(resp.PaymentID))
	}
	return text("%s answered %d: payment %s", actor, resp.StatusCode, short(resp.PaymentID))
}

// addRelay creates (or, on restart, recreates) a relay runner. A restarted
// relay is a new process: a new worker id, its old leases not its own.
func (p *Pipeline) addRelay(name string) *runner {
	var relay *engine.Relay
	build := func() {
		set := p.sim.settings
		jitter := rand.New(rand.NewPCG(p.sim.rng.Uint64(), p.sim.rng.Uint64())) // drawn before the id, as always: a replay's ids stay
		worker := p.sim.newID()
		relay = engine.NewRelay(engine.RelayConfig{
			Name: name, Connect: p.connect(name), Publisher: p.publisher(), Clock: p.sim.clock, Hook: hook,
			Rand: jitter, Counters: p.counters,
			WorkerID: worker, BatchSize: set.Batch, Lease: set.Lease, MaxAttempts: set.MaxAttempts,
			HoldTransaction: set.HoldTx, SeqCursor: set.SeqCursor, LeaseForever: set.LeaseForever, CDC: set.CDC,
			Ordering:       set.Ordering,
			TracerProvider: p.sim.tracing.Provider,
		})
		if p.workers == nil {
			p.workers = map[string]uuid.UUID{}
		}
		p.workers[name] = worker
		if set.CDC {
			p.cdc[name] = relay
		}
	}
	build()
	r := p.add(name, func(ctx context.Context) (unitResult, error) {
		res, err := relay.Step(ctx)
		if res.Idle && err == nil {
			return unitResult{idle: true}, nil
		}
		return unitResult{}, err
	})
	p.sim.restarters[p.Kind+"/"+name] = build
	return r
}

func (p *Pipeline) addConsumer(actor, consumer string) *runner {
	strategy := engine.StrategyInbox
	if s, err := engine.ParseStrategy(p.sim.settings.Consumer); err == nil {
		strategy = s // the scene's parser accepted only these names
	}
	var c *engine.Consumer
	build := func() {
		c = engine.NewConsumer(engine.ConsumerConfig{
			Name: consumer, Actor: actor, Connect: p.connect(actor), Subscriber: p.broker,
			Clock: p.sim.clock, Hook: hook, Counters: p.counters, Strategy: strategy,
			IgnoreVersions: p.sim.settings.IgnoreVersions, ParkGaps: p.sim.settings.ParkGaps, TracerProvider: p.sim.tracing.Provider,
			External: p.external(consumer), Provider: p.provider,
		})
	}
	build()
	r := p.add(actor, func(ctx context.Context) (unitResult, error) {
		res, err := c.Step(ctx)
		if res.Idle && err == nil {
			return unitResult{idle: true}, nil
		}
		return unitResult{}, err
	})
	p.sim.restarters[p.Kind+"/"+actor] = build
	return r
}

// publisher is the broker as the pipeline's writers see it: a poison
// message is refused every time (its payload fails the topic's schema), which
// is how a scene makes the relay retry until it dead-letters the row (S15).
func (p *Pipeline) publisher() engine.Publisher { return poisonGuard{p} }

type poisonGuard struct{ p *Pipeline }

// ErrPoison is the broker's refusal of a poison message.
var ErrPoison = errors.New("broker refused the message: payload fails the topic schema (poison)")

func (g poisonGuard) Publish(ctx context.Context, msg engine.Message) error {
	_, err := g.PublishDedup(ctx, msg)
	return err
}

// PublishDedup passes on the broker's answer that it dropped a duplicate
// inside its dedup window (`dedup-window:`), so the relay can say so.
func (g poisonGuard) PublishDedup(ctx context.Context, msg engine.Message) (bool, error) {
	if g.p.sim.poison[msg.ID] {
		return false, ErrPoison
	}
	return g.p.broker.PublishDedup(ctx, msg)
}

// lockState is what the lock-wait checks read of a pipeline's database:
// the actors (by connection name) waiting for a lock, and how many client
// backends run (active and waiting for no lock).
type lockState struct {
	waits   map[string]bool
	running int
}

func (p *Pipeline) lockState(ctx context.Context) (lockState, error) {
	st := lockState{waits: map[string]bool{}}
	rows, err := p.pool.Query(ctx, sqlLockState, p.db)
	if err != nil {
		return st, fmt.Errorf("who waits for a lock: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var waits, runs bool
		if err := rows.Scan(&name, &waits, &runs); err != nil {
			return st, fmt.Errorf("who waits for a lock: %w", err)
		}
		st.waits[name] = st.waits[name] || waits
		if runs {
			st.running++
		}
	}
	return st, rows.Err()
}

// stillState is lockState once the database is still: no client backend
// runs, so each waits for a lock that a parked actor holds or is idle, and
// which actor waits no longer changes by itself. A waiter whose lock was
// released runs until its statement ends (its actor then reports), a
// crashed actor's backend until it has gone. After quietWait it gives what
// it reads (a psql of the learner's running a long query).
func (p *Pipeline) stillState(ctx context.Context) (lockState, error) {
	deadline := time.Now().Add(quietWait)
	pause := 500 * time.Microsecond
	for {
		st, err := p.lockState(ctx)
		if err != nil || st.running == 0 || time.Now().After(deadline) {
			return st, err
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return st, ctx.Err()
		}
		pause = min(2*pause, 10*time.Millisecond)
	}
}

const quietWait = 2 * time.Second

// Actors lists the pipeline's actors in display order.
func (p *Pipeline) Actors() []string {
	names := make([]string, len(p.runners))
	for i, r := range p.runners {
		names[i] = r.name
	}
	return names
}

// liveWorkers are the worker ids of the relays alive now: a crashed relay's
// id died with it (its restart is a new worker), so a lease with no end that
// names it is held by nobody.
func (p *Pipeline) liveWorkers() []uuid.UUID {
	out := []uuid.UUID{}
	for _, r := range p.runners {
		if id, ok := p.workers[r.name]; ok && r.state != Crashed {
			out = append(out, id)
		}
	}
	return out
}

// charger is the one consumer that charges the card (S19): its effect is a
// ledger entry, and a payment booked should be charged.
const charger = "accounting"

// external is how a consumer charges the card: the charger, the way the
// scene's effect: header says; no other consumer charges.
func (p *Pipeline) external(consumer string) engine.External {
	if consumer != charger || p.provider == nil {
		return ""
	}
	return engine.External(p.sim.settings.Effect) // the scene's parser accepted only these names
}

// addSender runs the second outbox's sender (effect: second-outbox).
func (p *Pipeline) addSender(name string) error {
	if p.provider == nil {
		return fmt.Errorf("%s: no card provider (effect: second-outbox starts one)", name)
	}
	var s *engine.Sender
	build := func() {
		s = engine.NewSender(engine.SenderConfig{Name: name, Connect: p.connect(name), Clock: p.sim.clock, Hook: hook, Provider: p.provider})
	}
	build()
	p.add(name, func(ctx context.Context) (unitResult, error) {
		res, err := s.Step(ctx)
		if res.Idle && err == nil {
			return unitResult{idle: true}, nil
		}
		return unitResult{}, err
	})
	p.sim.restarters[p.Kind+"/"+name] = build
	return nil
}
