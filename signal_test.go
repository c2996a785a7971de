package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg"
)

// The test binary doubles as outboxlab: with this variable set, TestMain runs
// the program with the arguments that follow instead of the tests.
const childArgsEnv = "OUTBOXLAB_MAIN_TEST_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(childArgsEnv); args != "" {
		testrun.Exit(run(strings.Fields(args), os.Stdout, os.Stderr))
	}
	// Most of this package's tests wait on processes of their own (the
	// program under tmux, a server killed -9 and restarted, signals): alone
	// they took 131 s of CPU in 132 s at -parallel 2 (GOMAXPROCS here) and
	// 103 s at 4. Later, at 4, the package took 65 s of wall for 59 s of
	// CPU, its two longest tests waiting 10-14 s for a slot; at 8, 51 s.
	testrun.WaitMostly(4)
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	testrun.Exit(code)
}

// outboxlabChild runs this test binary as outboxlab with args (as
// TestMain reads them), standard input empty, as a child the test ends:
// killed with its process group when the test ends or timeout passes
// (testrun.Command).
func outboxlabChild(t *testing.T, timeout time.Duration, args string) *exec.Cmd {
	t.Helper()
	cmd := testrun.Command(t, timeout, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+args)
	return cmd
}

// outboxlab serve stops its server on SIGINT, SIGTERM and SIGHUP: nothing is
// left running on its data directory.
func TestServeStopsServerOnSignals(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := seededDataDir(t)
			cmd := outboxlabChild(t, 2*time.Minute, "serve --data-dir "+dir)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(out)
			ready, psql := false, false
			for lines.Scan() {
				// It says how to open the simulator's own databases.
				psql = psql || strings.HasPrefix(lines.Text(), "outbox:") && strings.Contains(lines.Text(), "psql '") && strings.Contains(lines.Text(), "/tui_outbox")
				if strings.HasPrefix(lines.Text(), "serving") {
					ready = true
					break
				}
			}
			if !psql {
				t.Error("serve does not print the psql command for the simulator's outbox database")
			}
			if !ready {
				_ = cmd.Process.Kill()
				t.Fatal("serve never said it was serving")
			}
			if n := postmasters(t, filepath.Join(dir, "pgdata")); n != 1 {
				t.Fatalf("%d servers while serving, want 1", n)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			rest := ""
			for lines.Scan() {
				rest += lines.Text() + "\n"
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("serve exited with %v after %v", err, sig)
				}
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("serve did not exit after %v", sig)
			}
			if !strings.Contains(rest, "stopped") {
				t.Errorf("serve did not say it stopped: %q", rest)
			}
			if n := postmasters(t, filepath.Join(dir, "pgdata")); n != 0 {
				t.Errorf("%d servers still run on the data directory after %v", n, sig)
			}
		})
	}
}

// postmasters counts PostgreSQL servers running on pgdata.
func postmasters(t *testing.T, pgdata string) int {
	t.Helper()
	pids, err := pg.Postmasters(pgdata)
	if err != nil {
		t.Fatal(err)
	}
	return len(pids)
}
