//go:build windows

package pg

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// killGroup kills a PostgreSQL program. Windows has no process-group kill;
// what runCmd may cancel (initdb, pg_ctl) is killed alone, and a postmaster
// pg_ctl had already started is found and stopped by the next boot's orphan
// recovery, as after a killed outboxlab.
func killGroup(p *os.Process) {
	_ = p.Kill()
}

// stillActive is the exit code GetExitCodeProcess reports for a process that
// has not exited (STILL_ACTIVE).
const stillActive = 259

// processAlive reports whether pid is a running process. Access denied means
// it exists but belongs to someone else, which counts as alive, as EPERM does
// on Unix.
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}
