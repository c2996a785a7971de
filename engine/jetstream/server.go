package jetstream

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// ErrServerStopped means the embedded server is not running (stopped, or
// not started again yet): an in-process connection has nothing to reach.
var ErrServerStopped = errors.New("embedded JetStream server is stopped")

// Server is a NATS server with JetStream embedded in this process. It
// listens on no port: clients reach it through Connect's in-process
// connection. Its file store lives in a directory the caller owns, so Stop
// and Start again keep every stream and consumer, and what they hold.
type Server struct {
	dir  string
	port int // a loopback port it also listens on (ServerOnPort); 0 none

	mu sync.Mutex
	ns *server.Server // nil while stopped
}

// StartServer starts an embedded server storing JetStream's files under dir.
// The server's own logs are off: it writes nothing to the terminal.
func StartServer(dir string) (*Server, error) {
	s := &Server{dir: dir}
	if err := s.Start(); err != nil {
		return nil, err
	}
	return s, nil
}

// ServerOnPort is a server that also listens on 127.0.0.1:port, storing
// under dir, not started (Start starts it): a broker at a URL (URL) that
// goes away and comes back on the same port and store, as an operator's
// restart does.
func ServerOnPort(dir string, port int) *Server { return &Server{dir: dir, port: port} }

// URL is where a ServerOnPort listens, whether it runs or not; "" for an
// embedded server, which listens nowhere.
func (s *Server) URL() string {
	if s.port == 0 {
		return ""
	}
	return fmt.Sprintf("nats://127.0.0.1:%d", s.port)
}

// Dir is the store directory.
func (s *Server) Dir() string { return s.dir }

// Start starts the server again on the same store after Stop; it does
// nothing when the server runs.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ns != nil {
		return nil
	}
	opts := &server.Options{
		ServerName: "outboxlab",
		DontListen: true, // in-process connections only: no port to collide with
		JetStream:  true,
		StoreDir:   s.dir,
		NoLog:      true,
		NoSigs:     true, // the process's signals are main's, not the server's
		// Every write reaches the disk before its ack: the relay marks a row
		// published once JetStream acks it, so an ack must survive a power
		// cut, not only a restart (the default syncs every two minutes).
		SyncAlways: true,
	}
	if s.port != 0 {
		opts.DontListen, opts.Host, opts.Port = false, "127.0.0.1", s.port
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return fmt.Errorf("embedded JetStream in %s: %w", s.dir, err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return fmt.Errorf("embedded JetStream in %s: not ready after 10s (a port taken meanwhile?)", s.dir)
	}
	s.ns = ns
	return nil
}

// Stop shuts the server down and waits until it has; its store stays. A
// client connected through Connect reconnects once Start runs again.
func (s *Server) Stop() {
	s.mu.Lock()
	ns := s.ns
	s.ns = nil
	s.mu.Unlock()
	if ns != nil {
		ns.Shutdown()
		ns.WaitForShutdown()
	}
}

// Running reports whether the server runs.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ns != nil
}

// InProcessConn is an in-process connection to the running server. It is
// what nats.InProcessServer calls on every (re)connect, so a client outlives
// a Stop and Start: it reaches whichever server runs now.
func (s *Server) InProcessConn() (net.Conn, error) {
	s.mu.Lock()
	ns := s.ns
	s.mu.Unlock()
	if ns == nil {
		return nil, ErrServerStopped
	}
	return ns.InProcessConn()
}

// Connect opens a client connection to the embedded server, in process. It
// reconnects for ever, every reconnectWait (default 50ms), across Stop and
// Start; while disconnected nothing is buffered, so a publish fails at once
// (the relay schedules a retry) instead of waiting in a buffer.
func (s *Server) Connect(name string, reconnectWait time.Duration) (*nats.Conn, error) {
	if reconnectWait <= 0 {
		reconnectWait = 50 * time.Millisecond
	}
	nc, err := nats.Connect("", nats.InProcessServer(s), nats.Name(name),
		nats.MaxReconnects(-1), nats.ReconnectWait(reconnectWait), nats.ReconnectJitter(0, 0),
		nats.ReconnectBufSize(-1))
	if err != nil {
		return nil, fmt.Errorf("connect to embedded JetStream: %w", err)
	}
	return nc, nil
}

// Dial connects to a NATS server (or cluster) at url, with the same
// reconnect policy as Connect. An unreachable url is an error at once.
func Dial(url, name string, reconnectWait time.Duration) (*nats.Conn, error) {
	return dial(url, name, reconnectWait)
}

// DialLater is Dial that returns at once even when no server at url
// answers: the client keeps trying in the background, every
// reconnectWait, for ever (IsConnected says when it is). err is only a
// url it cannot use.
func DialLater(url, name string, reconnectWait time.Duration) (*nats.Conn, error) {
	return dial(url, name, reconnectWait, nats.RetryOnFailedConnect(true))
}

func dial(url, name string, reconnectWait time.Duration, more ...nats.Option) (*nats.Conn, error) {
	if reconnectWait <= 0 {
		reconnectWait = 250 * time.Millisecond
	}
	opts := append([]nats.Option{nats.Name(name), nats.Timeout(2 * time.Second),
		nats.MaxReconnects(-1), nats.ReconnectWait(reconnectWait), nats.ReconnectBufSize(-1)}, more...)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", url, err)
	}
	return nc, nil
}
