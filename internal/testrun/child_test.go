//go:build linux

package testrun

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// gone waits up to 5 s for each pid to be gone (a killed process is
// reaped by its parent, or by init once orphaned).
func gone(t *testing.T, what string, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		defer func() {
			if alive(pid) && !zombie(pid) { // the wait below failed: end it here
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}()
		Eventually(t, 5*time.Second, fmt.Sprintf("%s: process %d gone", what, pid), func() bool { return !alive(pid) || zombie(pid) })
	}
}

// zombie says whether pid has ended and waits only to be reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// pids starts cmd and reads the pids its shell prints on its first line:
// its own, and its background child's.
func pids(t *testing.T, cmd *exec.Cmd) []int {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the child said no pids: %v", err)
	}
	var ps []int
	for _, f := range strings.Fields(line) {
		p, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pids %q: %v", line, err)
		}
		ps = append(ps, p)
	}
	return ps
}

const hang = `sleep 300 & echo $$ $!; wait`

// A child that hangs is cut at its deadline, its own children with it.
func TestAHangingChildIsCutAtItsDeadline(t *testing.T) {
	cmd := Command(t, 500*time.Millisecond, "sh", "-c", hang)
	ps := pids(t, cmd)
	start := time.Now()
	err := cmd.Wait()
	if err == nil {
		t.Fatal("a child that hangs ended well")
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("cut after %v, want about the 0.5 s deadline", took)
	}
	gone(t, "after the deadline", ps...)
}

// A child a test left running is killed, with its children, when the
// test ends.
func TestAChildEndsWithItsTest(t *testing.T) {
	var ps []int
	t.Run("starts one and ends", func(t *testing.T) {
		ps = pids(t, Command(t, time.Minute, "sh", "-c", hang))
	})
	gone(t, "after its test ended", ps...)
}

const killedRunEnv = "TESTRUN_KILLED_RUN"

// A test binary that is killed takes its children with it.
func TestAChildEndsWithAKilledRun(t *testing.T) {
	run := exec.Command(os.Args[0], "-test.run=^TestKilledRun$")
	run.Env = append(os.Environ(), killedRunEnv+"=1")
	ps := pids(t, run)
	if err := run.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = run.Wait()
	gone(t, "after its run was killed", ps[0])
}

// TestKilledRun is the run TestAChildEndsWithAKilledRun kills: it starts a
// child, says its pid, and waits.
func TestKilledRun(t *testing.T) {
	if os.Getenv(killedRunEnv) == "" {
		t.Skip("run by TestAChildEndsWithAKilledRun")
	}
	cmd := Command(t, time.Minute, "sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString(strconv.Itoa(cmd.Process.Pid) + "\n")
	time.Sleep(time.Minute) // deliberate: the run waits here to be killed
}
