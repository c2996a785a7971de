package httpapi

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/httpapi/deadline"
)

// Listener is where an HTTP API listens (--http): the socket is opened at
// Listen, before anything boots, so that a port in use is said first; the
// handler comes later (Serve), once whatever answers is running. The
// simulator's HTTP server (package simhttp) and a deployment (package deploy) both
// serve on one.
type Listener struct {
	Addr string // where it listens, host:port
	// Deadlines are the server's, set before Serve; zero is
	// deadline.Defaults (a test sets shorter ones to see them cut a slow
	// client in a second rather than ten).
	Deadlines deadline.Deadlines
	ln        net.Listener
	server    *http.Server
}

// Listen opens the listener at once, so a port in use is said before
// anything starts. An address with no host listens on loopback only.
func Listen(addr string) (*Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, badinput.Errorf("--http %q: want HOST:PORT, e.g. 127.0.0.1:8080 (%v)", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, badinput.Errorf("--http %s: %w: another program listens there; choose another port, e.g. --http 127.0.0.1:0 for any free one", addr, err)
	}
	return &Listener{Addr: ln.Addr().String(), ln: ln}, nil
}

// Serve answers every request with h, on a server with the deadlines of
// package deadline, until Close.
func (l *Listener) Serve(h http.Handler) {
	l.server = l.Deadlines.Server(h)
	go func() { _ = l.server.Serve(l.ln) }()
}

// ServeBackend answers POST and GET /payments with b (NewHandler).
func (l *Listener) ServeBackend(b Backend) { l.Serve(NewHandler(b)) }

// Server is the server Serve started, nil before: for a check of its
// deadlines.
func (l *Listener) Server() *http.Server { return l.server }

// Close stops the server, giving requests under way two seconds, or
// closes the socket if nothing was served.
func (l *Listener) Close() {
	if l.server == nil {
		_ = l.ln.Close()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = l.server.Shutdown(ctx)
}

// Curl are the commands a workshop types to reach the API.
func (l *Listener) Curl() []string {
	// Short lines: the help draws them beside a lead, and a cut command
	// cannot be copied.
	return []string{
		fmt.Sprintf(`curl -i %s/payments -H 'Idempotency-Key: k-1' \`, l.Addr),
		`  -H 'Content-Type: application/json' \`,
		`  -d '{"client_id":"acme","amount_cents":1250,"currency":"EUR"}'`,
		fmt.Sprintf("curl -s %s/metrics | grep ^outboxlab_outbox", l.Addr),
	}
}
