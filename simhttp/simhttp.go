package simhttp

import (
	"context"
	"fmt"
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

// Server is a simulation's HTTP API (--http): POST /payments is the api
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
type Server struct {
	*httpapi.Listener               // where it listens (Addr) and its server
	Said              bool          // the TUI said where, once (the driver's to set)
	send              func(Request) // set before it serves
	faults            bool          // the driver takes faults (TakeFaults)
	current           atomic.Pointer[sim.Sim]
	srv               atomic.Pointer[pg.Server]
	prefix            atomic.Pointer[string]

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

// Listen opens the listener at once (httpapi.Listen: a port in use is said
// before anything starts; its error bad input, a *badinput.Error).
func Listen(addr string) (*Server, error) {
	l, err := httpapi.Listen(addr)
	if err != nil {
		return nil, err
	}
	return On(l), nil
}

// On is a Server on a listener opened already.
func On(l *httpapi.Listener) *Server {
	return &Server{Listener: l, waiting: map[int]chan sim.Answer{}}
}

// Serve starts answering; send delivers a request to the driver.
func (e *Server) Serve(send func(Request), onError func(error)) {
	e.send = send
	col := telemetry.NewCollector(telemetry.Config{
		Sim: e.simulation,
		DatabaseURL: func(pipeline string) string {
			srv, prefix := e.srv.Load(), e.prefix.Load()
			if srv == nil || prefix == nil {
				return ""
			}
			return srv.DatabaseURL(pg.NamespaceOf(*prefix).Database(pipeline))
		},
		OnError: onError,
	})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", telemetry.Handler(col))
	if e.faults {
		httpapi.HandleFaults(mux, driven{e})
	} else {
		noFaults(mux)
	}
	api := httpapi.NewHandler(e)
	mux.Handle("POST /payments", waitsForTheDriver(api))
	mux.Handle("/", api)
	e.Listener.Serve(mux)
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

// Close stops the server; a client still waiting gets a reset.
func (e *Server) Close() {
	e.Abandon()
	e.Listener.Close()
}

// Simulating follows the simulation the driver runs (nil while none).
func (e *Server) Simulating(s *sim.Sim, srv *pg.Server, prefix string) {
	e.current.Store(s)
	if srv != nil {
		e.srv.Store(srv)
		e.prefix.Store(&prefix)
	}
}

// simulation is the simulation telemetry reads now, nil while none.
func (e *Server) simulation() telemetry.Simulation { return Figures(e.current.Load()) }

// CreatePayment hands the request to the model and waits for the api's
// answer, or for the client to give up.
func (e *Server) CreatePayment(ctx context.Context, req engine.PaymentRequest) (engine.PaymentResponse, error) {
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
func (e *Server) wait() (int, chan sim.Answer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.next++
	ch := make(chan sim.Answer, 1)
	e.waiting[e.next] = ch
	return e.next, ch
}

// forget drops a ticket whose client gave up.
func (e *Server) forget(ticket int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.waiting, ticket)
}

// Payment reads the payment from the simulation's database.
func (e *Server) Payment(ctx context.Context, id uuid.UUID) (engine.PaymentStatus, error) {
	s := e.current.Load()
	if s == nil {
		return engine.PaymentStatus{}, fmt.Errorf("the simulation is being built: %w", engine.ErrConnection)
	}
	return s.PaymentStatus(ctx, id)
}

// Answer hands answers to the clients waiting for them.
func (e *Server) Answer(answers ...sim.Answer) {
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
func (e *Server) Abandon() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for t, ch := range e.waiting {
		delete(e.waiting, t)
		ch <- sim.Answer{Ticket: t, Reset: true}
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
