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

	"github.com/jackc/pgx/v5"
)

// ErrDown matches (errors.Is) every error Alive returns: the server is not
// there to answer.
var ErrDown = errors.New("PostgreSQL is down")

// downError says how the server is down, in words for the learner: a
// sentence (its English format and arguments, so a screen can say it in
// another language) and, for a dead server, the last lines of its log.
type downError struct {
	stopped bool // "PostgreSQL stopped", not "does not answer"
	format  string
	args    []any
	log     string
}

func (e *downError) Error() string {
	msg := "PostgreSQL does not answer: "
	if e.stopped {
		msg = "PostgreSQL stopped: "
	}
	msg += fmt.Sprintf(e.format, e.args...)
	if e.log != "" {
		msg += "; last log lines:\n" + e.log
	}
	return msg
}

// Reason is why the server is down, without the "PostgreSQL stopped: "
// lead: a format and its arguments, and the server's last log lines ("" if
// none), which are PostgreSQL's own words.
func (e *downError) Reason() (format string, args []any, log string) {
	return e.format, e.args, e.log
}

// Is makes errors.Is(err, ErrDown) true.
func (e *downError) Is(target error) bool { return target == ErrDown }

// aliveTimeout bounds Alive's connection attempt: long enough for a busy
// machine, short enough for a UI that asks after every failed step.
const aliveTimeout = 3 * time.Second

// Alive reports whether the server answers: nil when it does, otherwise an
// error matching ErrDown that says what happened — a postmaster killed (or
// crashed) behind outboxlab's back, with the last lines of its log; a server
// outboxlab stopped; one that runs but does not answer in time; an external
// server (--database-url) that does not answer. A postmaster found dead is
// remembered, so Running turns false and Restart starts it again. During a
// Restart, Alive waits for it and then answers.
func (s *Server) Alive(ctx context.Context) error {
	url := s.external
	if url == "" {
		s.mu.Lock()
		running := s.running
		pid, up := s.postmaster()
		if running && !up {
			s.running = false
		}
		s.mu.Unlock()
		switch {
		case running && !up:
			return s.gone(pid)
		case !running:
			return &downError{stopped: true, format: "outboxlab stopped it (Restart starts it again)"}
		}
		url = s.DatabaseURL("postgres")
	}
	cctx, cancel := context.WithTimeout(ctx, aliveTimeout)
	defer cancel()
	conn, err := pgx.Connect(cctx, url)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // the caller gave up: that says nothing of the server
		}
		if TooManyConnections(err) {
			// It answers, with a refusal: every connection allowed (a
			// workshop learner's budget, max_connections) is taken. Down
			// for the caller until one is freed; say which.
			return &downError{format: "every connection allowed is in use (%v): close one (a psql session of yours) and it goes on", args: []any{pgMessage(err)}}
		}
		if s.external != "" {
			return &downError{format: "connect to --database-url %s: %v", args: []any{redactURL(s.external), err}}
		}
		// Just after a SIGKILL the socket is closed while the process is
		// still being torn down: give it a moment, so the learner is told
		// the cause (the postmaster is gone), not the symptom.
		for wait := time.Now().Add(time.Second); ; time.Sleep(10 * time.Millisecond) {
			s.mu.Lock()
			pid, up := s.postmaster()
			if !up {
				s.running = false
			}
			s.mu.Unlock()
			if !up {
				return s.gone(pid)
			}
			if time.Now().After(wait) || ctx.Err() != nil {
				break
			}
		}
		return &downError{format: "its postmaster runs but a connection to 127.0.0.1:%s failed: %v", args: []any{strconv.Itoa(s.Port), err}}
	}
	_ = conn.Close(ctx)
	return nil
}

// AliveVia is Alive asked through a connection the caller already holds:
// when our postmaster is there and that connection answers, the server
// does, and no backend was started to learn it (a new one costs PostgreSQL
// milliseconds of CPU, and a connection of a learner's budget). When it does
// not answer, Alive is asked, and says why.
//
// The postmaster is looked for first because a backend outlives a
// postmaster killed under it for a while, and answers meanwhile.
func (s *Server) AliveVia(ctx context.Context, q Querier) error {
	if s.external == "" {
		s.mu.Lock()
		running := s.running
		_, up := s.postmaster()
		s.mu.Unlock()
		if !running || !up {
			return s.Alive(ctx)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, aliveTimeout)
	defer cancel()
	if _, err := q.Exec(cctx, "SELECT 1"); err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return s.Alive(ctx)
}

// gone describes a postmaster that died under us.
func (s *Server) gone(pid int) *downError {
	e := &downError{stopped: true, format: "postmaster.pid is gone (killed, or crashed)"}
	if pid > 0 {
		// A pid and a port as strings: the catalog's printer groups an
		// integer's digits as the language does (28,979; 28.979).
		e.format, e.args = "postmaster pid %s is gone (killed, or crashed)", []any{strconv.Itoa(pid)}
	}
	e.log = logTail(filepath.Join(s.DataDir, logFile), 5)
	return e
}

// postmaster reads the cluster's postmaster.pid and reports whether that
// process is still our server. pid is 0 when the file is missing.
func (s *Server) postmaster() (pid int, up bool) {
	raw, err := os.ReadFile(filepath.Join(s.PGData, "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	pid, _ = strconv.Atoi(strings.TrimSpace(strings.SplitN(string(raw), "\n", 2)[0]))
	return pid, pid > 0 && isPostmaster(pid, s.PGData)
}

// clearDeadPostmaster readies a cluster whose postmaster died without a
// shutdown (SIGKILL, OOM killer) for a new start. Its children notice the
// death and exit by themselves, but a new postmaster refuses to start while
// any still holds the old shared memory, so we wait for them; and its
// postmaster.pid is removed, because a dead pid that lingers as a zombie (a
// container's init that does not reap) would make the new server refuse it.
func (s *Server) clearDeadPostmaster(ctx context.Context) error {
	pidPath := filepath.Join(s.PGData, "postmaster.pid")
	pid, up := s.postmaster()
	if up {
		return fmt.Errorf("a server (pid %d) already runs on %s", pid, s.PGData)
	}
	wait, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for len(clusterProcesses(s.PGData)) > 0 {
		select {
		case <-wait.Done():
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// Start anyway: PostgreSQL says precisely what still holds on.
			return s.removePIDFile(pidPath)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return s.removePIDFile(pidPath)
}

func (s *Server) removePIDFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove stale %s: %w", path, err)
	}
	return nil
}

// clusterProcesses lists processes whose working directory is pgdata: every
// PostgreSQL process of that cluster runs there, whatever it names itself.
// Without /proc (macOS) it finds none, and a start that comes too early is
// refused by PostgreSQL with its own reason.
func clusterProcesses(pgdata string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := filepath.Clean(pgdata)
	if real, err := filepath.EvalSymlinks(pgdata); err == nil {
		want = real // /proc shows the resolved path
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil && filepath.Clean(cwd) == want {
			pids = append(pids, pid)
		}
	}
	return pids
}
