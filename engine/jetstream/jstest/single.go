package jstest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Single is one NATS server with JetStream on a loopback port of its own,
// which a test stops and starts again on the same port and store: a broker
// at a URL going away and coming back, as an operator's restart does.
type Single struct {
	port int
	dir  string
	mu   sync.Mutex
	ns   *server.Server // nil while stopped
}

// NewSingle picks a free loopback port and a store directory of t's and
// starts nothing: Start does (a test may start outboxlab before it). A
// server still running at t's end is stopped.
func NewSingle(t testing.TB) *Single {
	t.Helper()
	s := &Single{port: freePort(t), dir: t.TempDir()}
	t.Cleanup(s.Stop)
	return s
}

// URL is the server's client URL, whether it runs or not.
func (s *Single) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.port) }

// Start starts the server on its port and store, and returns once it takes
// connections; it does nothing when it runs.
func (s *Single) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ns != nil {
		return nil
	}
	ns, err := server.NewServer(&server.Options{ServerName: "single", Host: "127.0.0.1", Port: s.port,
		JetStream: true, StoreDir: s.dir, NoLog: true, NoSigs: true})
	if err != nil {
		return fmt.Errorf("nats-server on port %d: %w", s.port, err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return fmt.Errorf("nats-server on port %d not ready after 10s (the port taken meanwhile?)", s.port)
	}
	s.ns = ns
	return nil
}

// Stop shuts the server down and waits until it has; its store stays.
func (s *Single) Stop() {
	s.mu.Lock()
	ns := s.ns
	s.ns = nil
	s.mu.Unlock()
	if ns != nil {
		ns.Shutdown()
		ns.WaitForShutdown()
	}
}
