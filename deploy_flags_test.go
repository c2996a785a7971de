package main

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine/jetstream/jstest"
)

// A --replicas the broker cannot have, a --stream that cannot name a
// stream, or a --log-format serve does not write, is refused before
// anything boots
// (exit 2, saying why); one a cluster is too small for is refused once the
// cluster says so, also exit 2.
func TestReplicasBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		say  string
	}{
		{"serve --replicas above JetStream's limit", []string{"serve", "--http", "127.0.0.1:0", "--broker", "nats://127.0.0.1:1", "--replicas", "7"}, "want 1 to 5"},
		{"serve --replicas negative", []string{"serve", "--http", "127.0.0.1:0", "--broker", "nats://127.0.0.1:1", "--replicas", "-1"}, "want 1 to 5"},
		{"serve --replicas on the embedded server", []string{"serve", "--http", "127.0.0.1:0", "--broker", "nats", "--replicas", "3"}, "the embedded JetStream is one server"},
		{"serve --replicas on the in-process broker", []string{"serve", "--http", "127.0.0.1:0", "--replicas", "3"}, "goes with a JetStream broker"},
		{"live --replicas on the embedded server", []string{"live", "--replicas", "2"}, "the embedded JetStream is one server"},
		{"serve --stream not a stream's name", []string{"serve", "--http", "127.0.0.1:0", "--broker", "nats", "--stream", "a.b"}, "a JetStream stream name has no spaces, dots"},
		{"serve --stream on the in-process broker", []string{"serve", "--http", "127.0.0.1:0", "--stream", "S"}, "--stream goes with a JetStream broker"},
		{"live --stream not a stream's name", []string{"live", "--stream", "a*"}, "a JetStream stream name has no spaces, dots"},
		{"serve --log-format unknown", []string{"serve", "--http", "127.0.0.1:0", "--broker", "nats", "--log-format", "xml"}, `--log-format "xml": want text or json`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append(c.args, "--data-dir", tempDataDir(t))
			if code := run(args, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), c.say) {
				t.Errorf("exit %d, stderr %q; want exit 2 saying %q", code, errb.String(), c.say)
			}
		})
	}
	if testing.Short() {
		return
	}
	t.Run("serve --replicas 5 on a cluster of 3", func(t *testing.T) {
		cl := jstest.StartCluster(t, 3)
		var out, errb bytes.Buffer
		code := run([]string{"serve", "--http", "127.0.0.1:0", "--broker", cl.URL(), "--replicas", "5", "--data-dir", tempDataDir(t)}, &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), "5 replicas") || !strings.Contains(errb.String(), "fewer JetStream servers") {
			t.Errorf("exit %d, stderr %q; want exit 2 saying the cluster is too small", code, errb.String())
		}
	})
}

// serve --http (the simulation in real time) names the databases that hold
// its payments for psql, not the server's outboxlab database, which is
// empty under it; and they are not live_outbox, the deployment's, which a
// simulation's reset would empty.
func TestServeHTTPPrintsThePaymentsDatabase(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("boots PostgreSQL")
	}
	cmd := outboxlabChild(t, 3*time.Minute, "serve --http 127.0.0.1:0 --data-dir "+seededDataDir(t))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	said := ""
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && !strings.HasPrefix(lines.Text(), "serving") {
		said += lines.Text() + "\n"
	}
	if !strings.Contains(said, "outbox:    psql '") || !strings.Contains(said, "/serve_outbox?") {
		t.Errorf("serve --http names no psql command for its outbox database (serve_outbox):\n%s", said)
	}
	if strings.Contains(said, "/outboxlab?") || strings.Contains(said, "/live_outbox") {
		t.Errorf("serve --http names a database its payments are not in:\n%s", said)
	}
}
