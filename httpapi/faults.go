package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/outboxlab/outboxlab/engine/fault"
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

// FaultPaths says the faults API's paths, for a 404 or 405 to show (and
// the simulator's screen, which serves none, to say where they are).
const FaultPaths = "POST /faults/" + string(fault.Crash) + "/ACTOR, POST /faults/" + string(fault.Stall) + "/ACTOR?for=45s, POST /faults/" +
	string(fault.Broker) + "/stop, POST /faults/" + string(fault.Broker) + "/start"

// The faults API's paths: /faults/ and a fault's word (fault.API).
const (
	crashPath  = "/faults/" + string(fault.Crash) + "/{actor}"
	stallPath  = "/faults/" + string(fault.Stall) + "/{actor}"
	brokerPath = "/faults/" + string(fault.Broker) + "/{op}"
)

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
	mux.HandleFunc("POST "+crashPath, func(w http.ResponseWriter, r *http.Request) {
		say(w)(f.Crash(r.Context(), r.PathValue("actor")))
	})
	mux.HandleFunc("POST "+stallPath, func(w http.ResponseWriter, r *http.Request) {
		d, err := time.ParseDuration(r.URL.Query().Get("for"))
		if err != nil || d <= 0 || d > MaxStall {
			WriteProblem(w, http.StatusBadRequest, "for: want a duration up to 1h, e.g. ?for=45s")
			return
		}
		say(w)(f.Stall(r.Context(), r.PathValue("actor"), d))
	})
	mux.HandleFunc("POST "+brokerPath, func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("op") {
		case "stop":
			say(w)(f.Broker(r.Context(), true))
		case "start":
			say(w)(f.Broker(r.Context(), false))
		default:
			WriteProblem(w, http.StatusNotFound, "want /faults/broker/stop or /faults/broker/start")
		}
	})
	// The method-less patterns take what the ones above leave: a GET of a
	// fault's path is 405, not the 404 of a path that is not there.
	for _, p := range []string{crashPath, stallPath, brokerPath} {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", http.MethodPost)
			WriteProblem(w, http.StatusMethodNotAllowed, r.Method+" is not allowed here: a fault is a POST (curl -X POST)")
		})
	}
	notFound := func(w http.ResponseWriter, r *http.Request) {
		WriteProblem(w, http.StatusNotFound, "no such fault: the faults are "+FaultPaths)
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
			WriteProblem(w, refused.Status, refused.Detail)
		case errors.Is(err, context.Canceled):
			WriteProblem(w, http.StatusServiceUnavailable, err.Error())
		case err != nil:
			WriteProblem(w, http.StatusInternalServerError, err.Error())
		default:
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusAccepted)
			_, _ = w.Write([]byte(text))
		}
	}
}
