package pg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// recoverOrphan handles a cluster left behind by an outboxlab that was killed
// (SIGKILL gives it no chance to stop the server): a live postmaster on our
// data directory is stopped; a postmaster.pid whose process is gone (or is now
// some other program, as PIDs are reused in containers) is removed.
func (s *Server) recoverOrphan(progress func(BootStep, string)) (string, error) {
	pidPath := filepath.Join(s.PGData, "postmaster.pid")
	raw, err := os.ReadFile(pidPath)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", pidPath, err)
	}
	lines := strings.Split(string(raw), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(lines[0]))
	if pid > 0 && isPostmaster(pid, s.PGData) {
		progress(BootRecovering, fmt.Sprintf("stopping orphan server pid %d", pid))
		cmd := s.acct.command(s.Binaries.Bin("pg_ctl"), "stop", "-w", "-t", "60", "-m", "fast", "-D", s.PGData)
		ctx, cancel := context.WithTimeout(context.Background(), 65*time.Second)
		defer cancel()
		if out, err := runCmd(ctx, cmd); err != nil {
			return "", fmt.Errorf("stop the orphan server (pid %d) on %s: %w\n%s", pid, s.PGData, err, out)
		}
		return fmt.Sprintf("stopped an orphan server (pid %d) left by a killed run", pid), nil
	}
	progress(BootRecovering, "removing stale postmaster.pid")
	if err := os.Remove(pidPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("remove stale %s: %w", pidPath, err)
	}
	return fmt.Sprintf("removed a stale postmaster.pid (pid %d no longer runs a server)", pid), nil
}

// isPostmaster reports whether pid is alive and is a PostgreSQL server on
// pgdata. Where /proc is missing (macOS, Windows), being alive has to be enough.
func isPostmaster(pid int, pgdata string) bool {
	if !processAlive(pid) {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		_, statErr := os.Stat("/proc/self")
		return statErr != nil
	}
	args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	if len(args) == 0 || !strings.Contains(filepath.Base(args[0]), "postgres") {
		return false
	}
	// A postmaster started by pg_ctl carries "-D <pgdata>"; a child process
	// of some other cluster would not.
	for i, a := range args {
		if a == "-D" && i+1 < len(args) {
			return filepath.Clean(args[i+1]) == filepath.Clean(pgdata)
		}
	}
	return true
}

// Postmasters lists the PIDs of PostgreSQL servers running on pgdata, read
// from /proc (Linux): what a test or an operator checks to be sure no server
// was left behind.
func Postmasters(pgdata string) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		if filepath.Base(args[0]) != "postgres" {
			continue
		}
		for i, a := range args {
			if a == "-D" && i+1 < len(args) && filepath.Clean(args[i+1]) == filepath.Clean(pgdata) {
				pids = append(pids, pid)
			}
		}
	}
	return pids, nil
}
