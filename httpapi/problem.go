package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/outboxlab/outboxlab/engine"
)

// problem is an RFC 9457 problem details object. type is always
// "about:blank": the status says what kind of problem it is, detail says
// this occurrence, and errors names the parts of the request at fault.
type problem struct {
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail,omitempty"`
	Errors []fieldError `json:"errors,omitempty"`
}

// fieldError names one bad part of a request: a body member by its JSON
// Pointer (RFC 6901, "/amount_cents"; "" is the whole body), or a header.
type fieldError struct {
	Pointer *string `json:"pointer,omitempty"`
	Header  string  `json:"header,omitempty"`
	Detail  string  `json:"detail"`
}

func bodyError(pointer, detail string) fieldError {
	return fieldError{Pointer: &pointer, Detail: detail}
}

func headerError(header, detail string) fieldError { return fieldError{Header: header, Detail: detail} }

// writeProblem is the one way the API answers an error.
func writeProblem(w http.ResponseWriter, status int, detail string, errs ...fieldError) {
	body, err := json.Marshal(problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: detail, Errors: errs})
	if err != nil {
		// Every member is a string, an int or a list of them: this cannot fail.
		panic("httpapi: encode problem: " + err.Error())
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// WriteProblem answers an error as the API does (RFC 9457), for handlers
// served beside it.
func WriteProblem(w http.ResponseWriter, status int, detail string) { writeProblem(w, status, detail) }

// writeBackendError answers err from a Backend: a problem whose status says
// what the client can do, or no response at all for ErrResetConnection.
// 5xx details carry the error's text: the API listens on loopback for a
// learner, who is better served by "database connection lost" than by a
// generic message.
func writeBackendError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, ErrResetConnection):
		resetConnection(w)
	case errors.Is(err, engine.ErrIdempotencyConflict):
		writeProblem(w, http.StatusUnprocessableEntity,
			"this Idempotency-Key was used with another body: a retry must repeat the request exactly, a new request needs a new key")
	case errors.Is(err, engine.ErrInvalidRequest):
		writeProblem(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, engine.ErrNotFound):
		writeProblem(w, http.StatusNotFound, "no such payment")
	case errors.Is(err, engine.ErrAmbiguousCommit):
		w.Header().Set("Retry-After", "1")
		writeProblem(w, http.StatusServiceUnavailable,
			"the database connection was lost during COMMIT, so whether the payment exists is unknown: retry with the same Idempotency-Key")
	case errors.Is(err, engine.ErrConnection), errors.Is(err, engine.ErrCommitFailed), errors.Is(err, engine.ErrSerialization):
		// Rolled back or never sent: nothing was committed, a retry is safe.
		w.Header().Set("Retry-After", "1")
		writeProblem(w, http.StatusServiceUnavailable, err.Error())
	case errors.Is(err, engine.ErrDuplicate):
		// A row the request would create exists and no idempotency record
		// explains it (the writer replays from one when it does).
		writeProblem(w, http.StatusConflict, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		writeProblem(w, http.StatusGatewayTimeout, err.Error())
	case errors.Is(err, context.Canceled):
		// The client hung up (or the server is stopping): nobody reads this.
		writeProblem(w, http.StatusServiceUnavailable, err.Error())
	default:
		writeProblem(w, http.StatusInternalServerError, err.Error())
	}
}
