package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/httpapi/deadline"
)

// Clock is the provider's source of time for the charges it stores; the
// simulator passes its virtual clock so a replay stores the same times.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// Server is the provider's HTTP server on a loopback port of its own.
type Server struct {
	pool  *pgxpool.Pool
	clock Clock
	ln    net.Listener
	srv   *http.Server
	done  chan error
}

// Start listens on 127.0.0.1 on a free port and serves until Close. pool is
// the provider's database (its tables in the provider schema); clock nil is
// the wall clock.
func Start(pool *pgxpool.Pool, clock Clock) (*Server, error) {
	return start(pool, clock, deadline.Defaults())
}

// start is Start with the server's deadlines d (a test's shorter ones).
func start(pool *pgxpool.Pool, clock Clock, d deadline.Deadlines) (*Server, error) {
	if clock == nil {
		clock = systemClock{}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("provider: listen: %w", err)
	}
	s := &Server{pool: pool, clock: clock, ln: ln, done: make(chan error, 1)}
	s.srv = d.Server(s.Handler()) // the API's deadlines: a call is one small JSON body
	go func() {
		err := s.srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s, nil
}

// URL is where the provider listens: http://127.0.0.1:PORT.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server, waiting up to five seconds for calls in flight.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("provider: close: %w", err)
	}
	return nil
}

// Handler is the provider's API: POST /charges.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /charges", s.charge)
	return mux
}
