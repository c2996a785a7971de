package pg

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// attachShared is a second outboxlab on a data directory a live one owns: it
// uses the owner's server (its address from postmaster.pid, its password
// from the data directory) as an external one, which it never stops, instead
// of refusing. A learner can keep the simulator open and run `outboxlab
// serve`, `run` or another simulator beside it, and two recordings can run
// at once. While it uses the server it holds the sharers' lock, so the
// owner, ending first, keeps the server up until this one ends too. An
// owner still booting is waited for, as long as ctx allows; inUse is
// returned when the owner's server cannot be reached or is stopping.
func attachShared(ctx context.Context, opts Options, dataDir string, inUse error, start time.Time, progress func(BootStep, string)) (*Server, error) {
	sharing, err := joinSharers(dataDir)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", inUse, err)
	}
	owner, _ := os.ReadFile(filepath.Join(dataDir, ownerFile))
	ownerPid := strings.TrimSpace(string(owner))
	var s *Server
	for waited := false; ; {
		s, err = attachOnce(ctx, opts, dataDir, start, progress)
		if err == nil {
			break
		}
		if !ownerBooting(dataDir) || ctx.Err() != nil || time.Since(start) > ownerBootWait {
			sharing.Close()
			return nil, fmt.Errorf("%w (and its server did not answer: %v)", inUse, err)
		}
		if !waited {
			progress(BootRecovering, fmt.Sprintf("waiting for the outboxlab that owns %s (pid %s) to start its server", dataDir, ownerPid))
			waited = true
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	s.sharers = sharing
	s.SharedWith = ownerPid
	s.DataDir = dataDir
	s.Binaries.Source = fmt.Sprintf("the server of outboxlab pid %s, which owns %s", s.SharedWith, dataDir)
	s.Account = "shared server"
	return s, nil
}

// ownerBootWait bounds how long a second outboxlab waits for the owner's
// server to come up: a cold boot (initdb) takes a few seconds.
const ownerBootWait = 2 * time.Minute

// ownerBooting says whether the data directory still has a live owner,
// which may still be starting its server.
func ownerBooting(dataDir string) bool {
	f, err := os.Open(filepath.Join(dataDir, ownerFile))
	if err != nil {
		return false
	}
	defer f.Close() // a lock taken here is not this process's to keep
	return tryLock(f) != nil
}

// attachOnce connects to the owner's server, if postmaster.pid says where.
func attachOnce(ctx context.Context, opts Options, dataDir string, start time.Time, progress func(BootStep, string)) (*Server, error) {
	raw, err := os.ReadFile(filepath.Join(dataDir, "pgdata", "postmaster.pid"))
	if err != nil {
		return nil, fmt.Errorf("no postmaster.pid yet")
	}
	lines := strings.Split(string(raw), "\n")
	// The pid file's eighth line is the server's status, "ready" once it
	// accepts connections.
	if len(lines) < 8 || strings.TrimSpace(lines[3]) == "" || strings.TrimSpace(lines[7]) != "ready" {
		return nil, fmt.Errorf("its server is not ready yet")
	}
	port := strings.TrimSpace(lines[3])
	pw, err := os.ReadFile(filepath.Join(dataDir, passwordFile))
	if err != nil {
		return nil, err
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(superuser, strings.TrimSpace(string(pw))),
		Host:     net.JoinHostPort("127.0.0.1", port),
		Path:     "/" + appDatabase,
		RawQuery: "sslmode=disable",
	}
	o := opts
	o.DatabaseURL = u.String()
	return bootExternal(ctx, o, start, progress)
}
