package sim

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/vclock"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"go.opentelemetry.io/otel/trace"
)

// Config says what to simulate.
type Config struct {
	Server   *pg.Server
	Settings scenes.Settings
	// Seed fixes jitter, ids, the scheduler's choices: the same seed gives the
	// same timeline. 0 takes Settings.Seed.
	Seed uint64
	// DBPrefix names the pipelines' databases (<prefix>_outbox, <prefix>_naive).
	DBPrefix string
	// Tracing is where the actors' spans go (S22); the zero value traces
	// nothing.
	Tracing Tracing
	// Start is where the virtual clock starts, and where a reset puts it
	// back. Zero is Epoch, so a scene's timeline is the same on every run;
	// live mode (serve --http) gives the wall time it starts at, so the
	// times it stores (created_at, published_at) read as a deployment's.
	Start time.Time
	// Reset is how a reset empties the tables for the next run (Renew,
	// Reset, a rewind's replay): truncated, the default, or deleted.
	Reset ResetKind
}

// ResetKind is how a reset empties a simulation's tables.
type ResetKind int

const (
	// ResetTruncate truncates the tables a run wrote: new files, so a run
	// leaves no dead row behind for a later read to prune (pruning writes
	// WAL, which the CDC relay's slot figure counts, every database's).
	ResetTruncate ResetKind = iota
	// ResetDelete deletes the rows and restarts the identities, and
	// truncates every truncateEvery-th reset and before a run with the CDC
	// relay: for a simulation renewed run after run on databases of its
	// own (a chaos worker), where TRUNCATE's new files and catalog rows
	// cost each kept connection its caches and plans (database.reset).
	ResetDelete
)

func (k ResetKind) String() string {
	if k == ResetDelete {
		return "delete"
	}
	return "truncate"
}

// Tracing hands every actor one OpenTelemetry TracerProvider. Restart is
// called with the seed whenever a run starts (a new simulation, a reset, a
// rewind's replay), so a replay makes the same trace ids and the recorder
// forgets the spans of the run it replaces.
type Tracing struct {
	Provider trace.TracerProvider // nil traces nothing
	Restart  func(seed uint64)
}

// Sim is one running simulation. Its methods are safe to call from several
// goroutines (the TUI's commands); they run one at a time.
type Sim struct {
	ctx    context.Context
	cancel context.CancelFunc
	op     sync.Mutex // one operation at a time

	// HTTP requests (http.go): the ticket the next request command
	// carries, and the answers given since TakeAnswers.
	httpMu  sync.Mutex
	ticket  int
	answers []Answer

	srv      *pg.Server
	tracing  Tracing
	settings scenes.Settings
	seed     uint64
	dbPrefix string
	// resetKind is how a reset empties the tables (Config.Reset).
	resetKind ResetKind
	dbs       map[string]*database // by pipeline kind, kept across resets
	clock     *vclock.Clock
	rng       *rand.Rand
	pipes     []*Pipeline

	actors     sync.WaitGroup // every actor's goroutine
	restarters map[string]func()
	poison     map[uuid.UUID]bool
	version    uint64         // bumped whenever the world changes
	pgDown     string         // why PostgreSQL is down; "" while it runs
	pgDownWhy  Text           // the same, as a catalog sentence
	moves      map[string]int // moves per actor in the run under way

	tlMu     sync.Mutex
	timeline []Entry
	epoch    int // Resets so far: a timeline read across one starts over
	changed  chan struct{}
}

// New builds the pipelines the settings ask for, each on a fresh database.
func New(ctx context.Context, cfg Config) (*Sim, error) {
	if cfg.Server == nil {
		return nil, errors.New("sim: no server")
	}
	if cfg.DBPrefix == "" {
		cfg.DBPrefix = "sim"
	}
	set, seed := settingsOf(cfg.Settings, cfg.Seed)
	if cfg.Start.IsZero() {
		cfg.Start = Epoch
	}
	sctx, cancel := context.WithCancel(context.Background())
	s := &Sim{
		tracing: cfg.Tracing,
		ctx:     sctx, cancel: cancel, srv: cfg.Server, settings: set, seed: seed, dbPrefix: cfg.DBPrefix, resetKind: cfg.Reset,
		dbs: map[string]*database{}, clock: newClock(cfg.Start), rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		restarters: map[string]func(){}, poison: map[uuid.UUID]bool{}, changed: make(chan struct{}, 1),
	}
	if err := s.build(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// settingsOf are the settings and seed a Config asks for: the default
// settings if it names no mode, the settings' seed if it gives none.
func settingsOf(set scenes.Settings, seed uint64) (scenes.Settings, uint64) {
	if set.Mode == "" {
		set = scenes.DefaultSettings()
	}
	if seed == 0 {
		seed = set.Seed
	}
	return set, seed
}

// Close stops every actor, waits for their goroutines, closes each actor's
// connections and then the simulator's own: nothing it opened stays behind.
func (s *Sim) Close() {
	s.stop()
	for _, d := range s.dbs {
		d.close()
	}
	s.dbs = map[string]*database{}
}

// Park ends the run where it stands, for a Renew to come: every actor
// stopped and its connection taken back, one left inside a transaction
// (a stalled actor's) closed, and a CDC relay's replication slot dropped, so
// nothing of the run stays open, locked or held (WAL) on the server while
// the simulation waits; its databases and idle connections are kept. Read
// what the run came to (Timeline, Oracles) before: the run takes no more
// steps.
func (s *Sim) Park() {
	s.op.Lock()
	defer s.op.Unlock()
	s.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for _, d := range s.dbs {
		d.reclaim(ctx)
		// Only a run with a CDC relay made a slot (every reset drops what
		// an earlier run made); one left behind goes at the next reset.
		if s.settings.CDC {
			_ = pg.DropSlots(ctx, d.pool, d.name)
		}
	}
}

// Reset puts the simulation back where New left it: every actor stopped,
// each pipeline's database reset, the clock, the seeded source and the
// timeline at their start. The databases are emptied in place and the
// actors' connections kept for the actors to come (see database). A Session
// rewinds this way and replays its log: the same Sim, so whoever watches it
// goes on watching.
func (s *Sim) Reset(ctx context.Context) error {
	s.op.Lock()
	defer s.op.Unlock()
	return s.reset(ctx, s.settings, s.seed)
}

// Renew is Reset to other settings and seed (0: the settings' own): the
// simulation New would build for them, on the databases and connections
// this one keeps. chaos runs one schedule after another this way.
func (s *Sim) Renew(ctx context.Context, set scenes.Settings, seed uint64) error {
	s.op.Lock()
	defer s.op.Unlock()
	set, seed = settingsOf(set, seed)
	return s.reset(ctx, set, seed)
}

func (s *Sim) reset(ctx context.Context, set scenes.Settings, seed uint64) error {
	defer s.notify()
	s.stop()
	rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	for _, d := range s.dbs {
		d.reclaim(rctx)
	}
	cancel()
	s.settings, s.seed = set, seed
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.clock.Reset()
	s.rng = rand.New(rand.NewPCG(s.seed, s.seed^0x9e3779b97f4a7c15))
	s.pipes, s.restarters, s.poison = nil, map[string]func(){}, map[uuid.UUID]bool{}
	s.version, s.pgDown, s.pgDownWhy, s.moves = 0, "", Text{}, nil
	s.tlMu.Lock()
	s.timeline = nil
	s.epoch++
	s.tlMu.Unlock()
	return s.build(ctx)
}

// build makes the pipelines the settings ask for, each on a database
// emptied for it.
func (s *Sim) build(ctx context.Context) error {
	if s.tracing.Restart != nil {
		s.tracing.Restart(s.seed)
	}
	for _, kind := range s.settings.Pipelines() {
		p, err := newPipeline(ctx, s, kind)
		if err != nil {
			return err
		}
		s.pipes = append(s.pipes, p)
	}
	return nil
}

// database is the pipeline kind's database, emptied: the one kept from
// before, reset in place, or (the first time, or if that reset failed) one
// ResetDatabase makes ready.
func (s *Sim) database(ctx context.Context, kind string) (*database, error) {
	if d := s.dbs[kind]; d != nil {
		err := d.reset(ctx, s.resetKind == ResetDelete && !s.settings.CDC)
		if err == nil {
			return d, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		d.close()
		delete(s.dbs, kind)
	}
	d, err := openDatabase(ctx, s.srv, pg.NamespaceOf(s.dbPrefix).Database(kind), kind)
	if err != nil {
		return nil, err
	}
	s.dbs[kind] = d
	return d, nil
}

// stop ends every actor's goroutine; their connections stay with the
// databases (reclaimed by a reset, closed by Close).
func (s *Sim) stop() {
	s.cancel()
	// A parked actor's hook returns the cancellation and one inside
	// PostgreSQL has its statement cancelled, so every goroutine ends.
	s.actors.Wait()
	for _, p := range s.pipes {
		p.endStreams()
	}
}

// Seed is the seed the run replays from.
func (s *Sim) Seed() uint64 { return s.seed }

// Settings are the settings the simulation runs with.
func (s *Sim) Settings() scenes.Settings { return s.settings }

// Now is the virtual time.
func (s *Sim) Now() time.Time { return s.clock.Peek() }

// Pipelines are the running pipelines (naive first in compare mode).
func (s *Sim) Pipelines() []*Pipeline { return s.pipes }

// Pipeline returns the pipeline of that kind, or nil.
func (s *Sim) Pipeline(kind string) *Pipeline {
	for _, p := range s.pipes {
		if p.Kind == kind {
			return p
		}
	}
	return nil
}

// Changed is signalled (without blocking) after each operation that changed
// something, so a UI can wait on it and then read the state.
func (s *Sim) Changed() <-chan struct{} { return s.changed }

func (s *Sim) notify() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// TimelineSince is Timeline for a reader that has the entries before from
// as of epoch: if a Reset came since, it gets every entry and reset true.
func (s *Sim) TimelineSince(epoch, from int) (entries []Entry, now int, reset bool) {
	s.tlMu.Lock()
	defer s.tlMu.Unlock()
	if epoch != s.epoch {
		return append([]Entry(nil), s.timeline...), s.epoch, true
	}
	if from < 0 || from > len(s.timeline) {
		return nil, s.epoch, false
	}
	return append([]Entry(nil), s.timeline[from:]...), s.epoch, false
}

// Epoch counts the Resets so far (a rewind, a reset): the epoch
// TimelineSince takes and returns, without copying entries.
func (s *Sim) Epoch() int {
	s.tlMu.Lock()
	defer s.tlMu.Unlock()
	return s.epoch
}

// Timeline returns a copy of the entries from index from on.
func (s *Sim) Timeline(from int) []Entry {
	s.tlMu.Lock()
	defer s.tlMu.Unlock()
	if from < 0 {
		from = 0
	}
	if from > len(s.timeline) {
		return nil
	}
	return append([]Entry(nil), s.timeline[from:]...)
}

func (s *Sim) record(e Entry) {
	s.tlMu.Lock()
	e.Seq = len(s.timeline) + 1
	e.At = s.clock.Peek()
	s.timeline = append(s.timeline, e)
	s.tlMu.Unlock()
}

// newID makes a uuid v7 from the virtual clock and the seeded source, so ids
// are time-ordered like real ones and identical across replays of a seed.
func (s *Sim) newID() uuid.UUID {
	var b [16]byte
	ms := uint64(s.clock.Peek().UnixMilli())
	b[0], b[1], b[2], b[3], b[4], b[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	binary.BigEndian.PutUint64(b[8:], s.rng.Uint64())
	r := s.rng.Uint32()
	b[6], b[7] = 0x70|byte(r>>8)&0x0f, byte(r)
	b[8] = 0x80 | b[8]&0x3f
	return uuid.UUID(b)
}

func (s *Sim) traceParent() string {
	return fmt.Sprintf("00-%016x%016x-%016x-01", s.rng.Uint64(), s.rng.Uint64(), s.rng.Uint64())
}

// ActorView is one actor as the pipeline view draws it.
type ActorView struct {
	Pipeline string
	Name     string
	State    ActorState
	At       engine.Checkpoint // where it is paused, stalled or crashed
	Armed    []string          // faults armed on it
}

// Actors describes every actor of every pipeline, plus each broker.
func (s *Sim) Actors() []ActorView {
	s.op.Lock()
	defer s.op.Unlock()
	var out []ActorView
	for _, p := range s.pipes {
		for _, r := range p.runners {
			v := ActorView{Pipeline: p.Kind, Name: r.name, State: r.state, At: r.at}
			for cp, f := range r.armed {
				v.Armed = append(v.Armed, string(f)+" at "+string(cp))
			}
			slices.Sort(v.Armed)
			out = append(out, v)
		}
		st := Idle
		if p.broker.Down() {
			st = Down
		}
		v := ActorView{Pipeline: p.Kind, Name: "broker", State: st}
		if p.broker.DuplicateArmed() {
			v.Armed = []string{"duplicate"} // the next delivery goes out twice
		}
		out = append(out, v)
	}
	return out
}

// traceParentFor continues the trace of a payment's request, so its later
// events share the trace id (S22: a trace correlates events, it never
// deduplicates them).
func (s *Sim) traceParentFor(paymentID uuid.UUID) string {
	for _, p := range s.pipes {
		if p.lastReq != nil && p.lastReq.req.PaymentID == paymentID && len(p.lastReq.req.TraceParent) == 55 {
			return p.lastReq.req.TraceParent[:36] + fmt.Sprintf("%016x", s.rng.Uint64()) + "-01"
		}
	}
	return s.traceParent()
}
