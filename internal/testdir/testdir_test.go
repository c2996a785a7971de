package testdir

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
)

func TestMakeIsUnderTheRootAndSearchable(t *testing.T) {
	want := t.TempDir()
	t.Setenv(EnvRoot, want)
	if got := Root(); got != want {
		t.Fatalf("Root with %s set: %q, want %q", EnvRoot, got, want)
	}
	dir, err := Make("x-")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != want {
		t.Errorf("made %s, not in %s", dir, want)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode of %s: %v %v, want 0755", dir, fi.Mode(), err)
	}
}

func TestMakeSaysWhatToSetWhenTheRootIsMissing(t *testing.T) {
	t.Setenv(EnvRoot, filepath.Join(t.TempDir(), "missing"))
	if _, err := Make("x-"); err == nil {
		t.Fatal("made a directory under a root that does not exist")
	}
}

func TestNoRAMDirWithoutTheRoom(t *testing.T) {
	if d := ramDir(1 << 62); d != "" {
		t.Errorf("ramDir with 4 EiB asked: %q", d)
	}
}

// A directory whose run was killed is swept by the next run, the server
// left in it stopped; one whose run lives is not, nor a seed.
func TestSweepTakesOnlyWhatDeadRunsLeft(t *testing.T) {
	root := t.TempDir()
	t.Setenv(EnvRoot, root)

	// A dead run: a child process that makes a directory under root
	// (holding its run's lock) and a "server" in it, then is killed.
	child := exec.Command(os.Args[0], "-test.run=^TestSweepChild$")
	child.Env = append(os.Environ(), sweepChildEnv+"=1")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	var deadDir string
	var serverPid int
	if _, err := fmt.Fscan(out, &deadDir, &serverPid); err != nil {
		t.Fatalf("the child said nothing: %v", err)
	}
	// The stand-in server outlives its run, as a postmaster does.
	if !alive(serverPid) {
		t.Fatalf("the stand-in server %d is not running", serverPid)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	seed := filepath.Join(root, "outboxlab-testcluster-x")
	if err := os.Mkdir(seed, 0o755); err != nil {
		t.Fatal(err)
	}
	// This run's first Make under root sweeps.
	live, err := Make("outboxlab-test-")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(deadDir); !os.IsNotExist(err) {
		t.Errorf("the dead run's %s is still there (%v)", deadDir, err)
	}
	if swept := Sweep(root); len(swept) != 0 {
		t.Errorf("a second sweep took %v", swept)
	}
	for _, keep := range []string{live, seed} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s was swept: %v", keep, err)
		}
	}
	defer func() {
		if alive(serverPid) { // the wait below failed: end it here
			_ = syscall.Kill(serverPid, syscall.SIGKILL)
		}
	}()
	testrun.Eventually(t, 5*time.Second, fmt.Sprintf("the server %d left in the dead run's directory ended", serverPid), func() bool { return !alive(serverPid) })
}

const sweepChildEnv = "OUTBOXLAB_TESTDIR_SWEEP_CHILD"

// TestSweepChild is the dead run of TestSweepTakesOnlyWhatDeadRunsLeft: it
// makes a directory with a process standing in for a postmaster (a sleep
// whose command line names "postgres" and the cluster), says both, and
// waits to be killed.
func TestSweepChild(t *testing.T) {
	if os.Getenv(sweepChildEnv) == "" {
		t.Skip("run by TestSweepTakesOnlyWhatDeadRunsLeft")
	}
	dir, err := Make("outboxlab-test-")
	if err != nil {
		t.Fatal(err)
	}
	pgdata := filepath.Join(dir, "data", "pgdata")
	if err := os.MkdirAll(pgdata, 0o755); err != nil {
		t.Fatal(err)
	}
	server := exec.Command("sh", "-c", `exec -a postgres sleep 60 "$0"`, pgdata)
	server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // not killed with its run
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pgdata, "postmaster.pid"), []byte(fmt.Sprintf("%d\n%s\n", server.Process.Pid, pgdata)), 0o600); err != nil {
		t.Fatal(err)
	}
	fmt.Println(dir, server.Process.Pid)
	time.Sleep(time.Minute) // deliberate: the dead run waits here to be killed
}
