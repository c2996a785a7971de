package jstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ExternalCluster is n nats-server processes started from a binary on the
// machine (Debian's nats-server, 2.9.10 on bookworm): the server as an
// operator runs it, apart from the library the module links, which is
// another version.
type ExternalCluster struct {
	Name    string
	Version string // what the binary's --version says
	cmds    []*exec.Cmd
	urls    []string
}

// NatsServerBinary is the nats-server on PATH. Missing, a test that needs
// it fails under CI=true (.ci/run installs Debian's) and is skipped
// otherwise.
func NatsServerBinary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no nats-server on PATH: CI installs Debian's (apt-get install nats-server)")
		}
		t.Skip("no nats-server on PATH (apt-get install nats-server): the test of an external cluster is skipped")
	}
	return bin
}

// StartExternalCluster starts n nats-server processes from the binary
// NatsServerBinary finds, with JetStream, routed to each other on loopback
// ports found free, each storing in a directory of t's, and waits until the
// cluster places a stream of n replicas. A start that fails (a port taken
// meanwhile) is stopped and made again on other ports, up to three times.
// They are stopped at t's end.
func StartExternalCluster(t testing.TB, n int) *ExternalCluster {
	t.Helper()
	bin := NatsServerBinary(t)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	var last error
	for try := 1; try <= 3; try++ {
		c := &ExternalCluster{Name: "outboxlab-ext", Version: strings.TrimSpace(string(out))}
		if last = c.start(t, bin, n); last == nil {
			t.Cleanup(c.Shutdown)
			return c
		}
		c.Shutdown()
		t.Logf("external cluster of %d, start %d: %v", n, try, last)
	}
	t.Fatalf("an external cluster of %d did not start in three tries: %v", n, last)
	return nil
}

func (c *ExternalCluster) start(t testing.TB, bin string, n int) error {
	routePorts := make([]int, n)
	var routes []string
	for i := range routePorts {
		routePorts[i] = FreePort(t)
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", routePorts[i]))
	}
	for i := range n {
		port := FreePort(t)
		cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", fmt.Sprint(port), "-js", "-sd", t.TempDir(),
			"--server_name", fmt.Sprintf("x%d", i+1), "--cluster_name", c.Name,
			"--cluster", routes[i], "--routes", strings.Join(routes, ","))
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start %s: %w", bin, err)
		}
		c.cmds = append(c.cmds, cmd)
		c.urls = append(c.urls, fmt.Sprintf("nats://127.0.0.1:%d", port))
	}
	return c.ready(n, 30*time.Second)
}

// ready waits until a stream of n replicas can be placed: every server
// is up, routed, and known to the meta leader as a peer.
func (c *ExternalCluster) ready(n int, within time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var last error
	for ctx.Err() == nil {
		last = c.placeOnce(ctx, n)
		if last == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("no stream of %d replicas placed in %s: %w", n, within, last)
}

func (c *ExternalCluster) placeOnce(ctx context.Context, n int) error {
	nc, err := nats.Connect(c.URL(), nats.Timeout(time.Second))
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := js.CreateStream(cctx, jetstream.StreamConfig{Name: "JSTEST_READY", Subjects: []string{"jstest.ready"}, Replicas: n}); err != nil {
		return err
	}
	if err := js.DeleteStream(cctx, "JSTEST_READY"); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return err
	}
	return nil
}

// URL is every server's client URL, comma separated: what --broker takes.
func (c *ExternalCluster) URL() string { return strings.Join(c.urls, ",") }

// Shutdown stops every server (SIGTERM, then SIGKILL after 10 s).
func (c *ExternalCluster) Shutdown() {
	for _, cmd := range c.cmds {
		if cmd.Process != nil && cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	for _, cmd := range c.cmds {
		if cmd.Process == nil || cmd.ProcessState != nil {
			continue
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
}

// Kill stops the server named name (x1…) as its operator's SIGTERM does
// (nats-server shuts down, its store kept on disk) and waits for it.
func (c *ExternalCluster) Kill(name string) error {
	for i, cmd := range c.cmds {
		if fmt.Sprintf("x%d", i+1) != name {
			continue
		}
		if cmd.ProcessState != nil {
			return fmt.Errorf("server %s is not running", name)
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			return fmt.Errorf("stop server %s: %w", name, err)
		}
		_ = cmd.Wait()
		return nil
	}
	return fmt.Errorf("no server %s", name)
}

// Restart starts the server named name (x1…), stopped by Kill, again: the
// same ports, store and routes, as its operator's restart does. It returns
// once the server takes connections; its rejoining the cluster's Raft
// groups comes after.
func (c *ExternalCluster) Restart(name string) error {
	for i, cmd := range c.cmds {
		if fmt.Sprintf("x%d", i+1) != name {
			continue
		}
		if cmd.ProcessState == nil {
			return fmt.Errorf("server %s is running", name)
		}
		again := exec.Command(cmd.Path, cmd.Args[1:]...)
		if err := again.Start(); err != nil {
			return fmt.Errorf("start server %s again: %w", name, err)
		}
		c.cmds[i] = again
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			nc, err := nats.Connect(c.urls[i], nats.Timeout(time.Second), nats.MaxReconnects(0))
			if err == nil {
				nc.Close()
				return nil
			}
			if time.Now().After(end) {
				return fmt.Errorf("server %s started again takes no connection after 10s: %w", name, err)
			}
		}
	}
	return fmt.Errorf("no server %s", name)
}
