package edge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/outboxlab/outboxlab/httpapi"
)

// Faults is what the faults API drives: a deployment's actors (deploy) or
// a simulation running live (serve --http), through its driver. Each
// method arms or does the fault and returns what to tell the client; a
// refusal is a *FaultError.
type Faults interface {
	// Crash arms a crash of actor at its next checkpoint; a supervisor
	// starts a new one a second later.
	Crash(ctx context.Context, actor string) (string, error)
	// Stall arms a stall of actor for d at its next checkpoint.
	Stall(ctx context.Context, actor string, d time.Duration) (string, error)
	// Broker stops the broker, or starts it again.
	Broker(ctx context.Context, stop bool) (string, error)
}

// FaultError is a fault the API refuses, with the status that says why:
// 404 an actor that does not run here, 400 a bad duration, 409 a broker
// that is not this process's to stop.
type FaultError struct {
	Status int
	Detail string
}

func (e *FaultError) Error() string { return e.Detail }

// MaxStall is the longest stall the faults API arms.
const MaxStall = time.Hour

// faultPaths says the faults API's paths, for a 404 or 405 to show.
const faultPaths = "POST /faults/crash/ACTOR, POST /faults/stall/ACTOR?for=45s, POST /faults/broker/stop, POST /faults/broker/start"

// HandleFaults serves the faults API on mux, the same under serve (a
// simulation) and a deployment (serve --broker nats, live):
//
//	POST /faults/crash/{actor}         202 armed: it dies at its next checkpoint
//	POST /faults/stall/{actor}?for=D   202 armed: it freezes for D (≤ 1h) there
//	POST /faults/broker/stop           202 the broker stops
//	POST /faults/broker/start          202 the broker starts again
//
// 202 is text/plain saying what was done; a refusal is problem+json: 404
// an unknown actor or path, 400 a bad for=, 409 a broker not ours, 405
// with Allow: POST for another method.
func HandleFaults(mux *http.ServeMux, f Faults) {
	mux.HandleFunc("POST /faults/crash/{actor}", func(w http.ResponseWriter, r *http.Request) {
		say(w)(f.Crash(r.Context(), r.PathValue("actor")))
	})
	mux.HandleFunc("POST /faults/stall/{actor}", func(w http.ResponseWriter, r *http.Request) {
		d, err := time.ParseDuration(r.URL.Query().Get("for"))
		if err != nil || d <= 0 || d > MaxStall {
			httpapi.WriteProblem(w, http.StatusBadRequest, "for: want a duration up to 1h, e.g. ?for=45s")
			return
		}
		say(w)(f.Stall(r.Context(), r.PathValue("actor"), d))
	})
	mux.HandleFunc("POST /faults/broker/{op}", func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("op") {
		case "stop":
			say(w)(f.Broker(r.Context(), true))
		case "start":
			say(w)(f.Broker(r.Context(), false))
		default:
			httpapi.WriteProblem(w, http.StatusNotFound, "want /faults/broker/stop or /faults/broker/start")
		}
	})
	// The method-less patterns take what the ones above leave: a GET of a
	// fault's path is 405, not the 404 of a path that is not there.
	for _, p := range []string{"/faults/crash/{actor}", "/faults/stall/{actor}", "/faults/broker/{op}"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", http.MethodPost)
			httpapi.WriteProblem(w, http.StatusMethodNotAllowed, r.Method+" is not allowed here: a fault is a POST (curl -X POST)")
		})
	}
	notFound := func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteProblem(w, http.StatusNotFound, "no such fault: the faults are "+faultPaths)
	}
	mux.HandleFunc("/faults", notFound)
	mux.HandleFunc("/faults/", notFound)
}

// say answers a fault: what was done (202, text), or its refusal.
func say(w http.ResponseWriter) func(string, error) {
	return func(text string, err error) {
		var refused *FaultError
		switch {
		case errors.As(err, &refused):
			httpapi.WriteProblem(w, refused.Status, refused.Detail)
		case errors.Is(err, context.Canceled):
			httpapi.WriteProblem(w, http.StatusServiceUnavailable, err.Error())
		case err != nil:
			httpapi.WriteProblem(w, http.StatusInternalServerError, err.Error())
		default:
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusAccepted)
			_, _ = w.Write([]byte(text))
		}
	}
}

// noFaults answers /faults/… where the driver takes none (the simulator's
// screen, whose keys are its faults).
func noFaults(mux *http.ServeMux) {
	h := func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteProblem(w, http.StatusNotFound, "the simulator's screen has no faults API: its keys are the faults (c crash, s stall, b broker). "+
			"outboxlab serve --http and outboxlab live --http serve "+faultPaths)
	}
	mux.HandleFunc("/faults", h)
	mux.HandleFunc("/faults/", h)
}

// Fault is a POST /faults/… for the driver to do to its simulation
// (Request.Fault), once it took faults (TakeFaults).
type Fault struct {
	Kind  FaultKind
	Actor string        // crash, stall
	For   time.Duration // stall
}

// FaultKind is what a Fault does.
type FaultKind string

// The fault kinds.
const (
	FaultCrash       FaultKind = "crash"        // at the actor's next checkpoint; restarted a second later
	FaultStall       FaultKind = "stall"        // at the actor's next checkpoint, for For
	FaultBrokerStop  FaultKind = "broker-stop"  // the broker goes down
	FaultBrokerStart FaultKind = "broker-start" // and up again
)

// TakeFaults, before Serve, says the driver takes faults: /faults/… reach
// it as Requests with Fault set, and it answers them with Answer (Err a
// *FaultError for a refusal). Without it, /faults/… is a 404 that says
// where the faults are.
func (e *Edge) TakeFaults() { e.faults = true }

// driven is the faults API of a simulation: each fault a Request to its
// driver, answered as a deployment's faults are.
type driven struct{ e *Edge }

func (d driven) Crash(ctx context.Context, actor string) (string, error) {
	if err := d.e.drive(ctx, Fault{Kind: FaultCrash, Actor: actor}); err != nil {
		return "", err
	}
	return fmt.Sprintf("armed: %s crashes at its next checkpoint; a supervisor starts a new one a second later\n", actor), nil
}

func (d driven) Stall(ctx context.Context, actor string, dur time.Duration) (string, error) {
	if err := d.e.drive(ctx, Fault{Kind: FaultStall, Actor: actor, For: dur}); err != nil {
		return "", err
	}
	return fmt.Sprintf("armed: %s freezes for %s at its next checkpoint\n", actor, dur), nil
}

func (d driven) Broker(ctx context.Context, stop bool) (string, error) {
	if stop {
		if err := d.e.drive(ctx, Fault{Kind: FaultBrokerStop}); err != nil {
			return "", err
		}
		return "the in-process broker is down: publishes fail (the relays schedule retries), consumers wait; what it holds is kept\n", nil
	}
	if err := d.e.drive(ctx, Fault{Kind: FaultBrokerStart}); err != nil {
		return "", err
	}
	return "the in-process broker is up again: the relays publish what waited at their next retry\n", nil
}

// drive hands f to the driver and waits for it to be done.
func (e *Edge) drive(ctx context.Context, f Fault) error {
	ticket, ch := e.wait()
	e.send(Request{Ticket: ticket, Fault: &f})
	select {
	case a := <-ch:
		if a.Reset {
			return &FaultError{Status: http.StatusServiceUnavailable, Detail: "the simulation ended before it took the fault"}
		}
		return a.Err
	case <-ctx.Done():
		e.forget(ticket)
		return ctx.Err()
	}
}
