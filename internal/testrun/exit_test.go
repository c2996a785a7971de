package testrun

import (
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if os.Getenv("TESTRUN_EXIT_CHILD") != "" {
		// The child: a goroutine still running at the end, as the
		// servers' readers and timers are in the module's packages, is
		// what the race detector's exit waits on.
		go func() { time.Sleep(time.Hour) }()
		code := m.Run()
		if os.Getenv("TESTRUN_EXIT_CHILD") == "fail" {
			code = 3
		}
		Exit(code)
	}
	Exit(m.Run())
}

func TestChild(t *testing.T) {}

// Exit passes the code on, and under -race a passing binary ends without
// the race detector's second of waiting.
func TestExitKeepsTheCodeAndSkipsTheRaceWait(t *testing.T) {
	for _, c := range []struct {
		child string
		code  int
	}{{"pass", 0}, {"fail", 3}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChild$")
		cmd.Env = append(os.Environ(), "TESTRUN_EXIT_CHILD="+c.child)
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code {
			t.Errorf("a child that should end %d ended %d", c.code, code)
		}
		if raceEnabled && c.code == 0 && took >= 900*time.Millisecond {
			t.Errorf("a passing child under -race took %s to end: the race detector's exit wait (1s) was not skipped", took)
		}
	}
}
