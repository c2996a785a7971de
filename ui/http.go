package ui

import (
	"errors"

	"github.com/outboxlab/outboxlab/edge"
	"github.com/outboxlab/outboxlab/httpapi"
)

// httpRequestMsg is a POST /payments (--http) waiting for the api: the
// model makes it a request command the session logs, with its ticket.
type httpRequestMsg edge.Request

// listenHTTP opens --http's listener before the screen opens: a bad address
// or a port in use is bad input.
func listenHTTP(addr string) (*edge.Edge, error) {
	e, err := edge.Listen(addr)
	var input *httpapi.InputError
	if errors.As(err, &input) {
		return nil, &UsageError{input.Err}
	}
	return e, err
}
