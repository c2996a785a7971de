package sim

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/scenes"
)

// Do performs one scene command (the TUI's keys send the same commands), in
// every pipeline that has what it names.
func (s *Sim) Do(ctx context.Context, st scenes.Step) error {
	s.op.Lock()
	defer s.op.Unlock()
	defer s.notify()
	err := s.downErr(ctx)
	if err == nil || st.Cmd == scenes.CmdRestartPostgres {
		err = s.checkDown(ctx, s.do(ctx, st))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", st, err)
	}
	return nil
}

// Step moves one actor of the scheduler's choice to its next checkpoint; it
// reports false when no actor can move without the clock advancing.
func (s *Sim) Step(ctx context.Context) (bool, error) {
	s.op.Lock()
	defer s.op.Unlock()
	defer s.notify()
	if err := s.downErr(ctx); err != nil {
		return false, err
	}
	moved, err := s.stepAny(ctx)
	return moved, s.checkDown(ctx, err)
}

func (s *Sim) do(ctx context.Context, st scenes.Step) error {
	arg := func(i int) string {
		if i < len(st.Args) {
			return st.Args[i]
		}
		return ""
	}
	switch st.Cmd {
	case scenes.CmdRequest:
		return s.request(st)
	case scenes.CmdResend, scenes.CmdResendOther:
		return s.resend(st.Cmd == scenes.CmdResendOther, st.KV["key"])
	case scenes.CmdCapture:
		return s.capture()
	case scenes.CmdCrash, scenes.CmdStall, scenes.CmdFailCommit, scenes.CmdDropCommit:
		if len(st.Args) == 3 && arg(1) == "at" {
			return s.arm(arg(0), engine.Checkpoint(arg(2)), fault.Fault(st.Cmd))
		}
		if st.Cmd != scenes.CmdCrash || len(st.Args) != 1 {
			return scriptf("want %s ACTOR at CHECKPOINT", st.Cmd)
		}
		return s.crashNow(ctx, arg(0))
	case scenes.CmdResume:
		return s.eachIn(arg(0), Stalled, "stalled", func(r *runner) error {
			r.state = Paused
			s.record(Entry{Pipeline: r.pipe.Kind, Actor: r.name, Kind: KindFault, Checkpoint: string(r.at)}.with(text("%s resumes at %s, unaware of how much time has passed", r.name, r.at)))
			return nil
		})
	case scenes.CmdRestart:
		return s.eachIn(arg(0), Crashed, "crashed", func(r *runner) error { return s.restart(r, false) })
	case scenes.CmdDuplicate:
		for _, p := range s.pipes {
			p.broker.DuplicateNext()
		}
		s.record(Entry{Actor: "broker", Kind: KindFault}.with(text("the broker will hand out its next delivery twice (a redelivery after a network blip looks exactly like this)")))
	case scenes.CmdBroker:
		down := arg(0) == "down"
		for _, p := range s.pipes {
			p.broker.SetDown(down)
		}
		s.version++
		if down {
			s.record(Entry{Actor: "broker", Kind: KindFault}.with(text("the broker is down: publishes and deliveries fail until it is back")))
		} else {
			s.record(Entry{Actor: "broker", Kind: KindFault}.with(text("the broker is back up")))
		}
	case scenes.CmdRestartPostgres:
		if s.srv.External() {
			return scriptf("restart-postgres needs the embedded server; --database-url points at one outboxlab must not stop, and a data directory another outboxlab has open is that one's to restart")
		}
		return s.restartPostgres(ctx)
	case scenes.CmdAdvance:
		d, err := time.ParseDuration(arg(0))
		if err != nil {
			return err
		}
		s.advance(d)
	case scenes.CmdStep:
		n := 1
		if len(st.Args) == 2 {
			n, _ = strconv.Atoi(st.Args[1])
		}
		for i := 0; i < n; i++ {
			if err := s.eachActor(arg(0), func(r *runner) error {
				moved, err := s.stepActor(ctx, r)
				if err == nil && !moved && i == 0 {
					s.idleNote(r)
				}
				return err
			}); err != nil {
				return err
			}
		}
	case scenes.CmdNext:
		// What Step does, n times: a session's log says a run of the
		// learner's n presses (or the screen's animated run) this way.
		n := 1
		if len(st.Args) == 1 {
			n, _ = strconv.Atoi(st.Args[0])
		}
		for i := 0; i < n; i++ {
			if moved, err := s.stepAny(ctx); err != nil || !moved {
				return err
			}
		}
	case scenes.CmdUntil:
		return s.until(ctx, arg(0), engine.Checkpoint(arg(1)))
	case scenes.CmdFinish:
		return s.eachActor(arg(0), func(r *runner) error {
			for i := 0; i < maxSteps; i++ {
				moved, err := s.stepActor(ctx, r)
				if err == nil && !moved && i == 0 {
					s.idleNote(r)
				}
				if err != nil || !moved || r.state != Idle && r.state != Paused {
					return err
				}
			}
			return scriptf("%s did not finish", r.name)
		})
	case scenes.CmdRun:
		return s.runQuiet(ctx)
	case scenes.CmdDrain:
		return s.drain(ctx)
	case scenes.CmdRequeue:
		return s.requeueDead(ctx)
	case scenes.CmdPrune:
		d, err := time.ParseDuration(arg(2))
		if err != nil {
			return err
		}
		return s.prune(ctx, arg(0), d)
	default:
		return scriptf("unknown command %q", st.Cmd)
	}
	return nil
}

// eachActor applies fn to the named actor in every pipeline that has it. An
// actor of a pipeline this mode does not run is skipped (said on the
// timeline; found is false); one the scene does not run at all is refused.
func (s *Sim) eachActor(actor string, fn func(*runner) error) error {
	pipe, name := scenes.SplitActor(actor)
	found := false
	for _, p := range s.pipes {
		if pipe != "" && p.Kind != pipe {
			continue
		}
		if r, ok := p.byName[name]; ok {
			found = true
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	if found {
		return nil
	}
	skip, why := absence(actor, s.settings)
	if why != "" {
		return scriptf("%s", why)
	}
	s.record(Entry{Actor: name, Kind: KindSkip, Explain: skip})
	return nil
}

// eachIn applies fn to the named actor's copies that are in state (an actor
// named in compare mode may be crashed in one pipeline only); none in that
// state is the script's mistake.
func (s *Sim) eachIn(name string, state ActorState, word string, fn func(*runner) error) error {
	var in []*runner
	if err := s.eachActor(name, func(r *runner) error {
		if r.state == state {
			in = append(in, r)
		}
		return nil
	}); err != nil {
		return err
	}
	if len(in) == 0 && s.has(name) {
		err := scriptf("%s is not %s", name, word).(*ScriptError)
		err.Say = text("%s is not %s", name, Text{Key: word}) // the state, said too
		return err
	}
	for _, r := range in {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// has reports whether an actor of that name runs here.
func (s *Sim) has(name string) bool {
	pipe, n := scenes.SplitActor(name)
	for _, p := range s.pipes {
		if _, ok := p.byName[n]; ok && (pipe == "" || p.Kind == pipe) {
			return true
		}
	}
	return false
}

// idleNote says an actor told to move had nothing to do, so a key that
// moved nothing still says why.
func (s *Sim) idleNote(r *runner) {
	s.record(Entry{Pipeline: r.pipe.Kind, Actor: r.name, Kind: KindNote}.with(text("%s has nothing to do now", r.name)))
}

func (s *Sim) actorNames() []string {
	seen := map[string]bool{}
	var names []string
	for _, p := range s.pipes {
		for _, r := range p.runners {
			if !seen[r.name] {
				seen[r.name] = true
				names = append(names, r.name)
			}
		}
	}
	return names
}

// writers names the actor that takes requests in each pipeline.
func writerOf(p *Pipeline) string {
	if p.Kind == "naive" {
		return "naive"
	}
	return "api"
}

func (s *Sim) request(st scenes.Step) error {
	amount := int64(1250)
	if v, ok := st.KV["amount"]; ok {
		amount, _ = strconv.ParseInt(v, 10, 64)
	}
	client := st.KV["client"]
	if client == "" {
		client = "acme"
	}
	currency := st.KV["currency"]
	if currency == "" {
		currency = "EUR"
	}
	trace := st.KV["trace"]
	if trace == "" {
		trace = s.traceParent()
	}
	req := engine.PaymentRequest{
		ClientID: client, IdempotencyKey: st.KV["key"], AmountCents: amount, Currency: currency,
		TraceParent: trace, PaymentID: s.newID(), EventID: s.newID(),
	}
	rq := request{req: req, ticket: s.takeTicket()}
	for _, a := range st.Args {
		if a == "poison" {
			rq.poison = true
			s.poison[req.EventID] = true
		}
	}
	s.enqueue(rq, text("a client asks for a %s payment (payment %s, event %s%s)", money(amount), short(req.PaymentID), short(req.EventID), keyNote(req.IdempotencyKey)))
	return nil
}

func keyNote(k string) string {
	if k == "" {
		return ""
	}
	return ", Idempotency-Key " + k
}

func money(cents int64) string { return fmt.Sprintf("%d.%02d EUR", cents/100, cents%100) }

func (s *Sim) enqueue(rq request, explain Text) {
	for _, p := range s.pipes {
		r := rq
		p.requests = append(p.requests, r)
		p.lastReq = &r
		if k := r.req.IdempotencyKey; k != "" {
			p.keyed[k] = r
		}
	}
	s.version++
	s.record(Entry{Actor: ActorClient, Kind: KindCommand, PaymentID: rq.req.PaymentID.String()}.with(explain))
}

// resend repeats the last request as an HTTP client retry would: the same
// Idempotency-Key and the same ids it made once (S21); other=true changes
// the body under the same key.
// key names the request to repeat, the latest sent with that key ("" for
// the latest request of all).
func (s *Sim) resend(other bool, key string) error {
	if len(s.pipes) == 0 || s.pipes[0].lastReq == nil {
		return scriptf("no earlier request to resend: send one first")
	}
	ticket := s.takeTicket() // a retry is a request of its own: its own client waits, or none
	rq := *s.pipes[0].lastReq
	if key != "" {
		keyed, ok := s.pipes[0].keyed[key]
		if !ok {
			return scriptf("no earlier request with Idempotency-Key %s to resend", key)
		}
		rq = keyed
	}
	rq.ticket = ticket
	what := text("the client retries the same request with Idempotency-Key %s", rq.req.IdempotencyKey)
	if rq.req.IdempotencyKey == "" {
		what = text("the client retries the same request (no Idempotency-Key: the server cannot tell it is a retry)")
		rq.req.PaymentID, rq.req.EventID = s.newID(), s.newID()
	}
	if other {
		rq.req.AmountCents++
		rq.req.PaymentID, rq.req.EventID = s.newID(), s.newID()
		what = text("the client reuses Idempotency-Key %s with another amount (%s)", rq.req.IdempotencyKey, money(rq.req.AmountCents))
	}
	s.enqueue(rq, what)
	return nil
}

func (s *Sim) capture() error {
	if len(s.pipes) == 0 || s.pipes[0].lastReq == nil {
		return scriptf("no payment to capture: send a request first")
	}
	id := s.pipes[0].lastReq.req.PaymentID
	for _, p := range s.pipes {
		p.requests = append(p.requests, request{capture: id, captureEvent: s.newID()})
	}
	s.version++
	s.record(Entry{Actor: ActorClient, Kind: KindCommand, PaymentID: id.String()}.with(text("the client captures payment %s: a second event of the same aggregate (version 2)", short(id))))
	return nil
}

// arm sets a fault for when the actor reaches the checkpoint; "armed" is
// said only when an actor of that name runs here.
func (s *Sim) arm(name string, cp engine.Checkpoint, f fault.Fault) error {
	armed := false
	err := s.eachActor(name, func(r *runner) error {
		r.armed[cp] = f
		armed = true
		return nil
	})
	if err == nil && armed {
		s.record(Entry{Actor: name, Kind: KindFault, Checkpoint: string(cp)}.with(armedText(f, name, cp)))
	}
	return err
}

// armedText says a fault armed, one sentence a fault, so that each reads
// whole in every language ("armado: crash naive…" did not).
func armedText(f fault.Fault, name string, cp engine.Checkpoint) Text {
	switch f {
	case fault.Crash:
		return text("armed: crash %s when it reaches %s", name, cp)
	case fault.Stall:
		return text("armed: stall %s when it reaches %s", name, cp)
	case fault.FailCommit:
		return text("armed: fail-commit %s when it reaches %s", name, cp)
	case fault.DropCommit:
		return text("armed: drop-commit %s when it reaches %s", name, cp)
	}
	return text("armed: %s %s when it reaches %s", string(f), name, cp)
}

// crashNow kills an actor where it is. Parked, it dies at its checkpoint;
// inside PostgreSQL (blocked), its backend is terminated, which is what the
// server sees when a process dies; idle, it just stops.
func (s *Sim) crashNow(ctx context.Context, name string) error {
	return s.eachActor(name, func(r *runner) error {
		switch r.state {
		case Paused, Stalled:
			return s.fire(ctx, r, fault.Crash)
		case Blocked:
			if _, err := r.pipe.pool.Exec(ctx, sqlTerminateActor, r.name, r.pipe.db); err != nil {
				return fmt.Errorf("terminate %s's backend: %w", r.name, err)
			}
			if _, err := s.follow(ctx, r); err != nil {
				return err
			}
			r.state = Crashed
			r.crashes++
			s.record(Entry{Pipeline: r.pipe.Kind, Actor: r.name, Kind: KindCrash}.with(text("%s died while waiting inside PostgreSQL: its connection closed, its transaction rolled back", r.name)))
		case Idle:
			// Nothing in flight, but a process that dies closes its
			// sockets: a CDC relay's stream too, else its walsender holds
			// the slot against the restarted relay.
			if relay := r.pipe.cdc[r.name]; relay != nil {
				relay.Kill()
			}
			r.state = Crashed
			r.crashes++
			s.version++
			s.record(Entry{Pipeline: r.pipe.Kind, Actor: r.name, Kind: KindCrash}.with(text("%s died between units of work: nothing was in flight", r.name)))
		}
		return nil
	})
}

// restart brings a crashed actor back as a new process.
// bySupervisor says a drain's supervisor restarts it, not the learner.
func (s *Sim) restart(r *runner, bySupervisor bool) error {
	by := bySupervisor
	if r.state != Crashed {
		return scriptf("%s is not crashed", r.name)
	}
	if build, ok := s.restarters[r.pipe.Kind+"/"+r.name]; ok {
		build()
	}
	r.state, r.at, r.triedAt = Idle, "", ^uint64(0)
	s.version++
	relay := strings.HasPrefix(r.name, "relay")
	var t Text
	switch {
	case by && relay && s.settings.CDC:
		t = text("a supervisor restarts %s: a new process; its stream starts again at the slot's confirmed LSN (no lease to wait for)", r.name)
	case relay && s.settings.CDC:
		t = text("restarted %s: a new process; its stream starts again at the slot's confirmed LSN (no lease to wait for)", r.name)
	case by && relay:
		t = text("a supervisor restarts %s: a new process with a new connection and a new worker id (its old leases are not its own)", r.name)
	case by:
		t = text("a supervisor restarts %s: a new process with a new connection", r.name)
	case relay:
		t = text("restarted %s: a new process with a new connection and a new worker id (its old leases are not its own)", r.name)
	default:
		t = text("restarted %s: a new process with a new connection", r.name)
	}
	s.record(Entry{Pipeline: r.pipe.Kind, Actor: r.name, Kind: KindRestart}.with(t))
	return nil
}

func (s *Sim) until(ctx context.Context, name string, cp engine.Checkpoint) error {
	return s.eachActor(name, func(r *runner) error {
		for i := 0; i < 200; i++ {
			moved, err := s.stepActor(ctx, r)
			if err != nil {
				return err
			}
			if (r.state == Paused || r.state == Stalled || r.state == Crashed) && r.at == cp {
				return nil
			}
			if r.state == Blocked {
				return nil // it waits inside PostgreSQL: as far as it can go now
			}
			if !moved {
				return scriptf("%s has nothing to do before reaching %s", r.name, cp)
			}
		}
		return scriptf("%s did not reach %s", r.name, cp)
	})
}

func (s *Sim) advance(d time.Duration) {
	s.clock.Advance(d)
	s.version++
	s.record(Entry{Actor: ActorClock, Kind: KindClock}.with(text("the clock moves %s forward, to %s", d, s.clock.Peek().Format("15:04:05"))))
}

// restartPostgres stops the server immediately (no checkpoint, sessions cut)
// and starts it: committed data survives through the WAL, open transactions
// are gone.
func (s *Sim) restartPostgres(ctx context.Context) error {
	if s.pgDown == "" {
		if err := s.srv.Crash(); err != nil {
			return err
		}
		s.record(Entry{Actor: "postgres", Kind: KindFault}.with(text("PostgreSQL stops immediately, as on a power cut: every connection is cut, open transactions are lost")))
	}
	if err := s.srv.Restart(ctx); err != nil {
		return err
	}
	s.back(text("PostgreSQL is back after crash recovery: whatever was committed is there"))
	return nil
}

func (s *Sim) requeueDead(ctx context.Context) error {
	before := len(s.timeline)
	defer func() {
		if len(s.timeline) == before {
			s.record(Entry{Actor: ActorOperator, Kind: KindNote}.with(text("nothing is dead-lettered: requeue has nothing to do")))
		}
	}()
	for _, p := range s.pipes {
		if p.Kind != "outbox" {
			continue
		}
		rows, err := p.pool.Query(ctx, sqlDeadLetters)
		if err != nil {
			return fmt.Errorf("list dead letters: %w", err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
		if err != nil {
			return fmt.Errorf("list dead letters: %w", err)
		}
		if err := p.withConn(ctx, func(c *pgx.Conn) error {
			for _, id := range ids {
				if err := engine.Requeue(ctx, c, id, s.clock.Now()); err != nil {
					return err
				}
				var attempts int
				if err := c.QueryRow(ctx, sqlAttemptsOf, id).Scan(&attempts); err != nil {
					return fmt.Errorf("read %s after the requeue: %w", short(id), err)
				}
				s.record(Entry{Pipeline: p.Kind, Actor: ActorOperator, Kind: KindCommand, MessageIDs: []string{id.String()}}.with(
					text("an operator requeues dead-lettered %s: same id (consumers still deduplicate it), attempts back to %d for a new retry budget, scheduled now", short(id), attempts)))
			}
			return nil
		}); err != nil {
			return err
		}
	}
	s.version++
	return nil
}

func (s *Sim) prune(ctx context.Context, what string, olderThan time.Duration) error {
	now := s.clock.Now()
	for _, p := range s.pipes {
		opts := engine.PruneOptions{Now: now, BatchSize: 100}
		if what == "inbox" {
			opts.InboxOlderThan = olderThan
		} else {
			opts.OutboxOlderThan = olderThan
		}
		var res engine.PruneResult
		err := p.withConn(ctx, func(c *pgx.Conn) error {
			var err error
			res, err = engine.Prune(ctx, c, opts)
			return err
		})
		if err != nil {
			return err
		}
		n := res.Outbox
		if what == "inbox" {
			n = res.Inbox
		}
		s.record(Entry{Pipeline: p.Kind, Actor: ActorOperator, Kind: KindCommand, Rows: n}.with(text("retention deletes %d %s rows older than %s", n, what, olderThan)))
	}
	s.version++
	return nil
}

func (p *Pipeline) withConn(ctx context.Context, fn func(*pgx.Conn) error) error {
	c, err := p.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	return fn(c.Conn())
}

// short names an id by its last 8 hex digits: a uuid v7 begins with its
// timestamp, so ids made in the same millisecond share their first digits
// and only the random tail tells them apart. The TUI's tables show the same.
func short(id uuid.UUID) string { s := id.String(); return "…" + s[len(s)-8:] }
