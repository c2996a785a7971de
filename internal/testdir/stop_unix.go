//go:build unix

package testdir

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func tryExclusive(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// stopServersIn ends every postmaster whose cluster is under dir, at once
// (SIGQUIT: an immediate shutdown, its backends with it), and waits for
// each to go; one still there after 5 s is killed.
func stopServersIn(dir string) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "postmaster.pid" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		first, _, _ := strings.Cut(string(b), "\n")
		pid, err := strconv.Atoi(strings.TrimSpace(first))
		if err != nil || pid <= 0 || !postmasterOf(pid, filepath.Dir(path)) {
			return nil
		}
		_ = syscall.Kill(pid, syscall.SIGQUIT)
		for deadline := time.Now().Add(5 * time.Second); alive(pid) && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		return nil
	})
}

// postmasterOf says whether pid is a postgres serving pgdata, not a
// process that took a dead server's pid.
func postmasterOf(pid int, pgdata string) bool {
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		// No /proc (macOS): the pid file's server is taken at its word.
		return alive(pid)
	}
	return bytes.Contains(cmdline, []byte("postgres")) && bytes.Contains(cmdline, []byte(pgdata))
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }
