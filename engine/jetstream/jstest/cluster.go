package jstest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Cluster is n NATS servers with JetStream, routed to each other.
type Cluster struct {
	Name string
	mu   sync.Mutex
	ns   []*server.Server // nil once killed
	urls []string
}

// Option changes every server's options before it starts.
type Option func(*server.Options)

// SyncAlways makes each server sync every write to disk before its ack, as
// the embedded broker does (on a replicated stream nats-server relaxes it to
// a sync per flush of the stream's Raft log).
func SyncAlways(o *server.Options) { o.SyncAlways = true }

// StartCluster starts n servers (named n1…nN) on loopback ports chosen
// free, each storing JetStream's files in a directory of t's, and waits
// until JetStream has a meta leader. They are shut down at t's end.
//
// The route ports are found free before the servers start, since each
// server's routes name the others' ports; one taken meanwhile (the tests
// beside this one open connections by the thousand, each from an ephemeral
// port) leaves its server without a route listener, never ready. Such a
// start is shut down and made again on other ports, up to three times.
func StartCluster(t testing.TB, n int, options ...Option) *Cluster {
	t.Helper()
	var err error
	for try := 1; try <= 3; try++ {
		var c *Cluster
		if c, err = startCluster(t, n, options); err == nil {
			t.Cleanup(c.Shutdown)
			return c
		}
		t.Logf("cluster of %d, start %d: %v", n, try, err)
	}
	t.Fatalf("a cluster of %d did not start in three tries: %v", n, err)
	return nil
}

// startCluster is one try of StartCluster; on an error it has shut down
// whatever it started.
func startCluster(t testing.TB, n int, options []Option) (*Cluster, error) {
	c := &Cluster{Name: "outboxlab-test"}
	routePorts := make([]int, n)
	for i := range routePorts {
		routePorts[i] = FreePort(t)
	}
	var routes []string
	for _, p := range routePorts {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	for i := range n {
		opts := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1),
			Host:       "127.0.0.1",
			Port:       server.RANDOM_PORT,
			JetStream:  true,
			StoreDir:   t.TempDir(),
			NoLog:      true,
			NoSigs:     true,
			Cluster: server.ClusterOpts{
				Name: c.Name,
				Host: "127.0.0.1",
				Port: routePorts[i],
			},
			Routes: server.RoutesFromStr(strings.Join(routes, ",")),
		}
		for _, o := range options {
			o(opts)
		}
		ns, err := server.NewServer(opts)
		if err != nil {
			c.Shutdown()
			return nil, fmt.Errorf("server n%d: %w", i+1, err)
		}
		c.ns = append(c.ns, ns)
		ns.Start()
		if !ns.ReadyForConnections(10 * time.Second) {
			c.Shutdown()
			return nil, fmt.Errorf("server n%d not ready after 10s (its route port %d taken?)", i+1, routePorts[i])
		}
		c.urls = append(c.urls, ns.ClientURL())
	}
	deadline := time.Now().Add(30 * time.Second)
	for !c.ready(n) {
		if time.Now().After(deadline) {
			c.Shutdown()
			return nil, fmt.Errorf("the cluster of %d has no JetStream meta leader, or not every route, after 30s", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return c, nil
}

// ready says every server sees the others, JetStream has a meta leader,
// and the leader counts every server as a peer a stream can be placed on
// (one whose statistics it has heard): before that, creating a stream of n
// replicas fails with "no suitable peers for placement, peer offline",
// which a loaded machine showed.
func (c *Cluster) ready(n int) bool {
	leader := false
	for _, ns := range c.ns {
		if ns.NumRoutes() < n-1 || !ns.JetStreamEnabled() {
			return false
		}
		if ns.JetStreamIsLeader() {
			leader = len(ns.JetStreamClusterPeers()) >= n
		}
	}
	return leader
}

// URL is every server's client URL, comma separated: what --broker takes.
func (c *Cluster) URL() string { return strings.Join(c.urls, ",") }

// URLs are the servers' client URLs, n1 first.
func (c *Cluster) URLs() []string { return c.urls }

// Kill shuts the server named name (n1…) down, its store kept on disk. It
// leaves as a server stopped by its operator does: the leaders it holds
// step down first.
func (c *Cluster) Kill(name string) error {
	c.mu.Lock()
	var ns *server.Server
	for i, s := range c.ns {
		if s != nil && s.Name() == name {
			ns, c.ns[i] = s, nil
		}
	}
	c.mu.Unlock()
	if ns == nil {
		return fmt.Errorf("no running server %s", name)
	}
	ns.Shutdown()
	ns.WaitForShutdown()
	return nil
}

// Shutdown stops every server still running.
func (c *Cluster) Shutdown() {
	c.mu.Lock()
	all := c.ns
	c.ns = make([]*server.Server, len(all))
	c.mu.Unlock()
	for _, ns := range all {
		if ns != nil {
			ns.Shutdown()
			ns.WaitForShutdown()
		}
	}
}

// FreePort is a port nobody listens on, for a server a test starts on it
// later (a broker away until the test brings it up, a cluster's routes).
// It is picked below the system's ephemeral ports, where it can be taken
// meanwhile only by another explicit pick: a port from port 0 is an
// ephemeral one, and the source port of any of the thousands of
// connections the tests open could take it before the server does.
func FreePort(t testing.TB) int {
	t.Helper()
	if lo := ephemeralLow(); lo > lowestPick {
		for range 100 {
			p := lowestPick + rand.IntN(lo-lowestPick)
			if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
				_ = l.Close()
				return p
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// lowestPick is the lowest port FreePort picks: above the ports services
// usually take.
const lowestPick = 10000

// ephemeralLow is the first of the system's ephemeral ports (Linux's
// ip_local_port_range), or 0 where it cannot be read.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return 0
	}
	return n
}
