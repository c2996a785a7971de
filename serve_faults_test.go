package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The README's faults, by curl, under `serve --http` (the simulation in
// real time) and `serve --http --broker nats` (the deployment): the same
// paths answer 202 under both, accounting-2 included (live's screen shows
// it, so serve --broker nats runs two accounting workers too).
func TestServeTakesTheREADMEsFaults(t *testing.T) {
	t.Parallel()
	readme := []string{"/faults/crash/relay-1", "/faults/stall/accounting?for=45s", "/faults/broker/stop", "/faults/broker/start"}
	for _, tc := range []struct {
		name  string
		args  string
		extra []string
	}{
		{"simulation", "", nil},
		{"deployment", " --broker nats", []string{"/faults/crash/accounting-2", "/faults/stall/accounting-2?for=1s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := startServeArgs(t, "serve --http 127.0.0.1:0 --data-dir "+seededDataDir(t)+tc.args)
			for _, p := range append(readme, tc.extra...) {
				resp, err := http.Post(base+p, "", nil)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					t.Errorf("POST %s: %s %s, want 202", p, resp.Status, body)
				}
			}
		})
	}
}

// startServeArgs runs outboxlab with args until the test ends and returns its
// API's base URL, read from what it prints.
func startServeArgs(t *testing.T, args string) string {
	t.Helper()
	cmd := outboxlabChild(t, 3*time.Minute, args)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("serve did not exit after SIGINT")
		}
	})
	lines := bufio.NewScanner(out)
	base, saidFaults := "", false
	for lines.Scan() {
		if f := strings.Fields(lines.Text()); len(f) >= 2 && f[0] == "api:" {
			base = f[1]
		}
		if strings.HasPrefix(lines.Text(), "faults:") {
			saidFaults = true
		}
		if strings.HasPrefix(lines.Text(), "serving") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	if base == "" {
		t.Fatal("serve never said where its API is")
	}
	if !saidFaults {
		t.Error("serve printed no faults: line: the README's exercise needs the paths")
	}
	return base
}
