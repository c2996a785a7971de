package edge

import (
	"context"
	"fmt"
	"github.com/outboxlab/outboxlab/httpapi/deadline"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/telemetry"
)

// Edge is a simulation's HTTP API (--http): POST /payments is the api
// actor's work like a keyed request — it waits in the api's queue, is
// paused, stepped and crashed at its checkpoints, and its client gets the
// answer or, when the api dies with it, a reset connection (an
// httpapi.Backend); GET /payments/{id} reads the database at the virtual
// now; GET /metrics is Prometheus' (telemetry); POST /faults/… are the
// driver's when it takes them (TakeFaults: serve), else a 404 that says
// where they are (the TUI, whose keys are the faults). Handlers run on the HTTP
// server's goroutines: a request reaches whoever drives the simulation (the
// TUI's model, serve's loop) through send, and the driver hands the api's
// answers back with Answer — only the driver touches the simulation.
type Edge struct {
	Addr    string // where it listens, host:port
	Said    bool   // the TUI said where, once (the driver's to set)
	ln      net.Listener
	server  *http.Server
	send    func(Request) // set before it serves
	faults  bool          // the driver takes faults (TakeFaults)
	current atomic.Pointer[sim.Sim]
	srv     atomic.Pointer[pg.Server]
	prefix  atomic.Pointer[string]

	mu      sync.Mutex
	next    int
	waiting map[int]chan sim.Answer
}

// Request is a POST /payments waiting for the api: the driver makes it a
// request command with its Ticket (sim.SetTicket) and hands back the answer.
// With Fault set it is a POST /faults/… instead (see TakeFaults): the
// driver does the fault and answers the Ticket, Err nil or a *FaultError.
type Request struct {
	Ticket int
	Req    engine.PaymentRequest
	Fault  *Fault
}

// InputError is an address that cannot be listened on: bad input (exit 2).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Listen opens the listener at once, so a port in use is said before
// anything starts. An address with no host listens on loopback only.
func Listen(addr string) (*Edge, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &InputError{fmt.Errorf("--http %q: want HOST:PORT, e.g. 127.0.0.1:8080 (%v)", addr, err)}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, &InputError{fmt.Errorf("--http %s: %w: another program listens there; choose another port, e.g. --http 127.0.0.1:0 for any free one", addr, err)}
	}
	return &Edge{Addr: ln.Addr().String(), ln: ln, waiting: map[int]chan sim.Answer{}}, nil
}

// Serve starts answering; send delivers a request to the driver.
func (e *Edge) Serve(send func(Request), onError func(error)) {
	e.send = send
	col := telemetry.NewCollector(telemetry.Config{
		Sim: e.current.Load,
		DatabaseURL: func(pipeline string) string {
			srv, prefix := e.srv.Load(), e.prefix.Load()
			if srv == nil || prefix == nil {
				return ""
			}
			return srv.DatabaseURL(*prefix + "_" + pipeline)
		},
		OnError: onError,
	})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", telemetry.Handler(col))
	if e.faults {
		HandleFaults(mux, driven{e})
	} else {
		noFaults(mux)
	}
	api := httpapi.NewHandler(e)
	mux.Handle("POST /payments", waitsForTheDriver(api))
	mux.Handle("/", api)
	e.server = deadline.NewServer(mux)
	go func() { _ = e.server.Serve(e.ln) }()
}

// waitsForTheDriver lifts the server's WriteTimeout for a request whose
// answer the simulation gives when it gets to it: under the TUI a POST
// waits in the api's queue until the learner moves the api, for as long as
// the learner takes. Nothing is held meanwhile but the request: a client
// that hangs up leaves the queue (its context ends), and a simulation that
// goes resets it (Abandon). Its body is still read under ReadTimeout.
func waitsForTheDriver(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
		h.ServeHTTP(w, r)
	})
}

// ServeBackend answers POST and GET /payments with b instead of a
// simulation: the engine running for real, in real time (serve --broker
// nats). Its /metrics is not a simulation's: a deployment serves its own
// beside the API through ServeHandler.
func (e *Edge) ServeBackend(b httpapi.Backend) { e.ServeHandler(httpapi.NewHandler(b)) }

// ServeHandler answers every request with h (ServeBackend's API and
// whatever a deployment adds beside it).
func (e *Edge) ServeHandler(h http.Handler) {
	e.server = deadline.NewServer(h)
	go func() { _ = e.server.Serve(e.ln) }()
}

// Close stops the server; a client still waiting gets a reset.
func (e *Edge) Close() {
	e.Abandon()
	if e.server == nil {
		_ = e.ln.Close()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = e.server.Shutdown(ctx)
}

// Simulating follows the simulation the driver runs (nil while none).
func (e *Edge) Simulating(s *sim.Sim, srv *pg.Server, prefix string) {
	e.current.Store(s)
	if srv != nil {
		e.srv.Store(srv)
		e.prefix.Store(&prefix)
	}
}

// CreatePayment hands the request to the model and waits for the api's
// answer, or for the client to give up.
func (e *Edge) CreatePayment(ctx context.Context, req engine.PaymentRequest) (engine.PaymentResponse, error) {
	// The request becomes a line of the session's log, in the scene
	// language: a value with a space could not be written there.
	if err := req.Validate(); err != nil {
		return engine.PaymentResponse{}, err
	}
	for name, v := range map[string]string{"client_id": req.ClientID, "Idempotency-Key": req.IdempotencyKey, "currency": req.Currency} {
		if strings.ContainsAny(v, " \t\r\n#=") || name == "currency" && strings.ToUpper(v) != v {
			return engine.PaymentResponse{}, fmt.Errorf("%w: %s: the simulator logs each request as a scene command, which holds no spaces, '#' or '=' in a value", engine.ErrInvalidRequest, name)
		}
	}
	ticket, ch := e.wait()
	e.send(Request{Ticket: ticket, Req: req})
	select {
	case a := <-ch:
		switch {
		case a.Reset:
			return engine.PaymentResponse{}, httpapi.ErrResetConnection
		case a.Err != nil:
			return engine.PaymentResponse{}, a.Err
		}
		return a.Resp, nil
	case <-ctx.Done():
		e.forget(ticket)
		return engine.PaymentResponse{}, ctx.Err()
	}
}

// wait takes a ticket and the channel its answer comes on.
func (e *Edge) wait() (int, chan sim.Answer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.next++
	ch := make(chan sim.Answer, 1)
	e.waiting[e.next] = ch
	return e.next, ch
}

// forget drops a ticket whose client gave up.
func (e *Edge) forget(ticket int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.waiting, ticket)
}

// Payment reads the payment from the simulation's database.
func (e *Edge) Payment(ctx context.Context, id uuid.UUID) (engine.PaymentStatus, error) {
	s := e.current.Load()
	if s == nil {
		return engine.PaymentStatus{}, fmt.Errorf("the simulation is being built: %w", engine.ErrConnection)
	}
	return s.PaymentStatus(ctx, id)
}

// Answer hands answers to the clients waiting for them.
func (e *Edge) Answer(answers ...sim.Answer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, a := range answers {
		if ch, ok := e.waiting[a.Ticket]; ok {
			delete(e.waiting, a.Ticket)
			ch <- a
		}
	}
}

// Abandon resets every waiting client: the simulation they were queued in
// is gone (another scene, a reset, a rewind), as a restarted server drops
// its connections.
func (e *Edge) Abandon() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for t, ch := range e.waiting {
		delete(e.waiting, t)
		ch <- sim.Answer{Ticket: t, Reset: true}
	}
}

// Curl are the commands a workshop types to reach the API.
func (e *Edge) Curl() []string {
	// Short lines: the help draws them beside a lead, and a cut command
	// cannot be copied.
	return []string{
		fmt.Sprintf(`curl -i %s/payments -H 'Idempotency-Key: k-1' \`, e.Addr),
		`  -H 'Content-Type: application/json' \`,
		`  -d '{"client_id":"acme","amount_cents":1250,"currency":"EUR"}'`,
		fmt.Sprintf("curl -s %s/metrics | grep ^outboxlab_outbox", e.Addr),
	}
}

// Step is the scene command a POST /payments is: the session's log keeps
// it, so a saved session replays it.
func Step(req engine.PaymentRequest) scenes.Step {
	st := scenes.Step{Cmd: scenes.CmdRequest, KV: map[string]string{
		"amount": strconv.FormatInt(req.AmountCents, 10), "client": req.ClientID, "currency": req.Currency,
	}}
	if req.IdempotencyKey != "" {
		st.KV["key"] = req.IdempotencyKey
	}
	if req.TraceParent != "" {
		st.KV["trace"] = req.TraceParent
	}
	return st
}

// ErrNoSimulation answers a request that came while no simulation ran.
var ErrNoSimulation = fmt.Errorf("no simulation runs yet (it is being built): %w", engine.ErrConnection)
