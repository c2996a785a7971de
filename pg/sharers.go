package pg

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// sharersFile is the lock a second outboxlab holds, shared, for as long as
// it uses the server of the outboxlab that owns the data directory (two
// recordings at once, serve beside an open simulator). The owner, stopping,
// takes it exclusive first: it keeps the server up until the last sharer
// has ended, and no new sharer joins a server about to stop.
const sharersFile = "outboxlab.sharers"

// stoppingFile is the gate sharers pass to join: the owner holds it
// exclusive from the moment it starts to stop, so the sharers can only
// leave while it waits for them.
const stoppingFile = "outboxlab.stopping"

// joinSharers takes the sharers' lock of dataDir, shared. It fails once
// the owner has begun to stop.
func joinSharers(dataDir string) (*os.File, error) {
	gate, err := openLockFile(dataDir, stoppingFile)
	if err != nil {
		return nil, err
	}
	defer gate.Close()
	if tryShared(gate) != nil {
		return nil, fmt.Errorf("the server's owner is stopping it")
	}
	f, err := openLockFile(dataDir, sharersFile)
	if err != nil {
		return nil, err
	}
	if err := tryShared(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("the server's owner is stopping it")
	}
	return f, nil
}

func openLockFile(dataDir, name string) (*os.File, error) {
	path := filepath.Join(dataDir, name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return f, nil
}

// sharerPoll is how often a stopping owner looks whether its sharers ended.
const sharerPoll = 100 * time.Millisecond

// waitForSharers returns once no other outboxlab uses this server (holding
// the sharers' lock exclusive from then until release), or at once when
// the lock cannot be had at all. While sharers remain it says so, once,
// through s.waiting; an interrupt, SIGTERM or SIGHUP during the wait stops
// waiting, and the server is stopped under them.
func (s *Server) waitForSharers() {
	gate, err := openLockFile(s.DataDir, stoppingFile)
	if err != nil {
		return
	}
	// A joiner holds the gate for an instant only.
	for deadline := time.Now().Add(time.Second); tryLock(gate) != nil && time.Now().Before(deadline); {
		time.Sleep(sharerPoll / 10)
	}
	s.holdGate(gate)
	f, err := openLockFile(s.DataDir, sharersFile)
	if err != nil {
		return
	}
	if tryLock(f) == nil {
		s.holdSharers(f)
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sig)
	s.say(fmt.Sprintf("PostgreSQL stays up while another outboxlab uses it (%s): it stops when that one ends; Ctrl-C stops it now", s.DataDir))
	tick := time.NewTicker(sharerPoll)
	defer tick.Stop()
	for {
		select {
		case <-sig:
			f.Close()
			return
		case <-tick.C:
			if tryLock(f) == nil {
				s.holdSharers(f)
				return
			}
		}
	}
}

// holdGate keeps the stopping gate until release.
func (s *Server) holdGate(f *os.File) { s.hold(&s.gate, f) }

// holdSharers keeps the sharers' lock, exclusive, until release.
func (s *Server) holdSharers(f *os.File) { s.hold(&s.sharers, f) }

// hold keeps f in *field (closing what was there) until release.
func (s *Server) hold(field **os.File, f *os.File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if *field != nil {
		_ = (*field).Close()
	}
	*field = f
}

// say tells the user something while no screen is up: through the
// Options.Say given to Boot, else on standard error.
func (s *Server) say(msg string) {
	if s.sayTo != nil {
		s.sayTo(msg)
		return
	}
	fmt.Fprintln(os.Stderr, "outboxlab: "+msg)
}
