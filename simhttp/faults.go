package simhttp

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/httpapi"
)

// noFaults answers /faults/… where the driver takes none (the simulator's
// screen, whose keys are its faults).
func noFaults(mux *http.ServeMux) {
	h := func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteProblem(w, http.StatusNotFound, "the simulator's screen has no faults API: its keys are the faults (c crash, s stall, b broker). "+
			"outboxlab serve --http and outboxlab live --http serve "+httpapi.FaultPaths)
	}
	mux.HandleFunc("/faults", h)
	mux.HandleFunc("/faults/", h)
}

// Fault is a POST /faults/… for the driver to do to its simulation
// (Request.Fault), once it took faults (TakeFaults).
type Fault struct {
	// Kind is one of fault.API: a crash at the actor's next checkpoint
	// (restarted a second later), a stall there for For, the broker down
	// (Stop) or up again.
	Kind  fault.Fault
	Actor string        // crash, stall
	For   time.Duration // stall
	Stop  bool          // broker: down, else up
}

// TakeFaults, before Serve, says the driver takes faults: /faults/… reach
// it as Requests with Fault set, and it answers them with Answer (Err a
// *httpapi.FaultError for a refusal). Without it, /faults/… is a 404 that says
// where the faults are.
func (e *Server) TakeFaults() { e.faults = true }

// driven is the faults API of a simulation: each fault a Request to its
// driver, answered as a deployment's faults are.
type driven struct{ e *Server }

func (d driven) Crash(ctx context.Context, actor string) (string, error) {
	if err := d.e.drive(ctx, Fault{Kind: fault.Crash, Actor: actor}); err != nil {
		return "", err
	}
	return fmt.Sprintf("armed: %s crashes at its next checkpoint; a supervisor starts a new one a second later\n", actor), nil
}

func (d driven) Stall(ctx context.Context, actor string, dur time.Duration) (string, error) {
	if err := d.e.drive(ctx, Fault{Kind: fault.Stall, Actor: actor, For: dur}); err != nil {
		return "", err
	}
	return fmt.Sprintf("armed: %s freezes for %s at its next checkpoint\n", actor, dur), nil
}

func (d driven) Broker(ctx context.Context, stop bool) (string, error) {
	if stop {
		if err := d.e.drive(ctx, Fault{Kind: fault.Broker, Stop: true}); err != nil {
			return "", err
		}
		return "the in-process broker is down: publishes fail (the relays schedule retries), consumers wait; what it holds is kept\n", nil
	}
	if err := d.e.drive(ctx, Fault{Kind: fault.Broker}); err != nil {
		return "", err
	}
	return "the in-process broker is up again: the relays publish what waited at their next retry\n", nil
}

// drive hands f to the driver and waits for it to be done.
func (e *Server) drive(ctx context.Context, f Fault) error {
	ticket, ch := e.wait()
	e.send(Request{Ticket: ticket, Fault: &f})
	select {
	case a := <-ch:
		if a.Reset {
			return &httpapi.FaultError{Status: http.StatusServiceUnavailable, Detail: "the simulation ended before it took the fault"}
		}
		return a.Err
	case <-ctx.Done():
		e.forget(ticket)
		return ctx.Err()
	}
}
