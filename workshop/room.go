package workshop

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
)

// ConnsPerLearner is how many PostgreSQL connections one learner's
// simulator holds at most on two cores: measured with pg_stat_activity
// (TestTwoLearnersSeeOnlyTheirOwnDatabases samples it every 20 ms) at 9 for
// a compare lesson's two pipelines through a drain and a crash, 5 for one
// pipeline; 12 leaves room for a chaos run's. Each pipeline's pool may grow
// to one connection per core past four (pgxpool's default), which
// perLearner adds on bigger machines.
const ConnsPerLearner = 12

// reservedConns are the room's own: the boot, a learner's psql or two,
// PostgreSQL's superuser reserve.
const reservedConns = 20

// perLearner is ConnsPerLearner on this machine: two pools (compare mode),
// each up to max(4, cores) connections.
func perLearner() int { return ConnsPerLearner + 2*max(0, runtime.NumCPU()-4) }

// maxConnections is PostgreSQL's max_connections for a room of n.
func maxConnections(n int) int { return reservedConns + n*perLearner() }

// replication is max_replication_slots and max_wal_senders for a room of
// n: the CDC lesson's relay holds a slot and a sender per learner (pg's own
// 64 suffice up to 24 learners at two each).
func replication(n int) int { return max(64, 2*n+16) }

// Room is one workshop: the shared PostgreSQL, the SSH server and every
// learner who connected since it started.
type Room struct {
	cfg    Config
	dir    string     // the room's files: host key, learners/
	srv    *pg.Server // booted by the room
	shared *pg.Server // the same server as an external one: never stopped or restarted by a learner
	course []*lessons.Lesson
	ssh    *ssh.Server
	sshLn  net.Listener
	web    *webDoor // nil without --web
	met    *metrics
	spares *spareDatabases

	mu       sync.Mutex
	learners map[string]*learner // by id, kept after they leave
	paused   string              // the room's pause message, "" while running
	// pausedStandard: the pause has no message of the instructor's, and
	// each learner reads it in their own language.
	pausedStandard bool
	closeAt        time.Time // when the room closes, after the instructor's q (zero: not closing)
	roster         []string  // --roster's names, as written
	anonymous      int       // the last learner_N named (Anonymous)
	closed         bool
	sessions       sync.WaitGroup // learner sessions still running (their cleanup included)
	changed        chan struct{}  // poked on every change, for the instructor's screen

	// clock is the room's time: how long on a step, idle, stuck. A test
	// sets it to a clock it moves, to see a learner stuck for minutes
	// without waiting minutes; nil is time.Now.
	clock func() time.Time
}

// now is the room's time.
func (r *Room) now() time.Time {
	if r.clock != nil {
		return r.clock()
	}
	return time.Now()
}

// Run boots the room's PostgreSQL, serves learners over SSH until ctx ends
// (or the instructor quits), then ends every session, drops their
// databases and stops PostgreSQL. Bad input is a *badinput.Error, before
// anything starts.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.check(); err != nil {
		return err
	}
	r, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	return r.serve(ctx)
}

// open boots PostgreSQL and starts listening: learners can connect when it
// returns.
func open(ctx context.Context, cfg Config) (r *Room, err error) {
	dir, err := roomDir(cfg.PG.DataDir)
	if err != nil {
		return nil, err
	}
	course, err := lessons.Load(cfg.Lang)
	if err != nil {
		return nil, err
	}
	srv, err := bootSized(ctx, cfg.PG, cfg.MaxLearners)
	if err != nil {
		return nil, err
	}
	// srv, not r.srv: a failure below (the --ssh port taken) returns r as
	// nil before this runs, and the server must still be stopped.
	defer func() {
		if err != nil {
			srv.Stop()
		}
	}()
	r = &Room{cfg: cfg, dir: dir, course: course, learners: map[string]*learner{}, changed: make(chan struct{}, 1), srv: srv}
	// After the boot: an empty data directory must be empty for it.
	if err := os.MkdirAll(filepath.Join(dir, "learners"), 0o700); err != nil {
		return nil, fmt.Errorf("workshop: %w", err)
	}
	if !r.srv.BootedHere() {
		return nil, badinput.New("workshop: the room needs a PostgreSQL of its own (its max_connections sized for the room, its databases dropped as learners leave): leave out --database-url, and give --data-dir a directory no other outboxlab has open")
	}
	// Each learner connects as a role of their own, a member of the
	// template's users (budget.go).
	if err := r.srv.ShareTemplate(ctx); err != nil {
		return nil, fmt.Errorf("workshop: %w", err)
	}
	if err := r.dropLeftovers(ctx); err != nil {
		return nil, err
	}
	if err := r.openSpares(ctx); err != nil {
		return nil, err
	}
	// Learners get the server as an external one: restart-postgres (a key,
	// a scene's script, a chaos schedule) would stop every learner's
	// simulator, so the simulator refuses it on such a server.
	if r.shared, err = pg.Boot(ctx, pg.Options{DatabaseURL: r.srv.URL()}); err != nil {
		return nil, fmt.Errorf("workshop: %w", err)
	}
	r.anonymous = lastAnonymous(filepath.Join(dir, "learners"))
	if cfg.Roster != "" {
		if r.roster, err = readRoster(cfg.Roster); err != nil {
			return nil, err
		}
	}
	r.met = newMetrics()
	if cfg.SSH != "" {
		if r.ssh, err = r.newSSH(); err != nil {
			return nil, err
		}
		if r.sshLn, err = net.Listen("tcp", cfg.SSH); err != nil {
			return nil, badinput.Errorf("--ssh %s: %w; give another HOST:PORT (port 0 takes a free one, and the room's screen says which)", cfg.SSH, err)
		}
	}
	if r.web, err = r.listenWeb(); err != nil {
		if r.sshLn != nil {
			_ = r.sshLn.Close()
		}
		return nil, err
	}
	return r, nil
}

// SSHAddr is where the SSH door listens, "" without one.
func (r *Room) SSHAddr() string {
	if r.sshLn == nil {
		return ""
	}
	return r.sshLn.Addr().String()
}

// roomDir is where the room keeps its files: beside the cluster in the
// data directory.
func roomDir(dataDir string) (string, error) {
	if dataDir == "" {
		state, err := pg.DefaultStateDir()
		if err != nil {
			return "", err
		}
		dataDir = filepath.Join(state, "data")
	}
	return filepath.Join(dataDir, "workshop"), nil
}

// serve runs the room until ctx ends or the instructor quits.
func (r *Room) serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	if r.ssh != nil {
		go func() { served <- r.ssh.Serve(r.sshLn) }()
	} else {
		served <- nil
	}
	r.web.serve()
	r.fillSpares(ctx)
	httpAddr := ""
	if r.cfg.HTTP != "" {
		stop, addr, err := r.met.serve(r.cfg.HTTP, r)
		if err != nil {
			r.close()
			return err
		}
		defer stop()
		httpAddr = addr
	}
	if r.cfg.Ready != nil {
		r.cfg.Ready(r.SSHAddr(), httpAddr)
	}
	if r.web != nil {
		fmt.Fprintf(r.cfg.Out, "learners' page: http://%s/\nthe room's page (instructor, keep the token to yourself): http://%s/room?token=%s\n", r.WebAddr(), r.WebAddr(), r.RoomToken())
	}
	var err error
	if r.cfg.Screen {
		err = r.instructorScreen(ctx, cancel, httpAddr)
	} else {
		r.logLines(ctx, httpAddr)
	}
	closeErr := r.close()
	// A Serve that began after close shut the server ends on its closed
	// listener (net.ErrClosed), as stopped.
	if e := <-served; e != nil && !errors.Is(e, ssh.ErrServerClosed) && !errors.Is(e, net.ErrClosed) && err == nil {
		err = e
	}
	return errors.Join(err, closeErr)
}

// close ends every session, waits for each learner's cleanup and stops
// PostgreSQL.
func (r *Room) close() error {
	r.stopSpares()
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	var reportErr error
	if r.cfg.Report != "" {
		// While every learner is still on the list, connected or not.
		_, reportErr = r.WriteReport(r.cfg.Report)
	}
	// Each learner's program quits as their own q would: bubbletea leaves
	// their terminal as it found it (the main screen, no mouse, the
	// cursor shown) before their connection closes; a connection closed
	// under a running program leaves the terminal in the alternate screen.
	for _, p := range r.programs(nil) {
		p.Quit()
	}
	done := make(chan struct{})
	go func() { r.sessions.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-time.After(time.Minute):
		err = errors.New("workshop: learners' sessions still closing after a minute")
	}
	// Every session has sent its exit status: the clients close their
	// connections themselves (ssh then says "Connection … closed", not
	// "closed by remote host"); those that do not within 2 s are cut.
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if r.ssh != nil {
		if e := r.ssh.Shutdown(sctx); e != nil && !errors.Is(e, ssh.ErrServerClosed) {
			if e = r.ssh.Close(); e != nil && !errors.Is(e, ssh.ErrServerClosed) {
				err = errors.Join(err, e)
			}
		}
		// Shutdown closes the listeners Serve has begun to accept on; a
		// room stopped as soon as it started may stop before its Serve
		// has, and that Serve would then accept for ever. Closed here, its
		// first Accept fails and it returns, the server already shut.
		_ = r.sshLn.Close()
	}
	err = errors.Join(err, r.web.close())
	return errors.Join(err, reportErr, r.srv.Stop())
}

// logf writes a line of the room's log (none under the instructor's
// screen, which would be drawn over).
func (r *Room) logf(format string, args ...any) {
	if !r.cfg.Screen {
		fmt.Fprintf(r.cfg.Out, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	}
}

// poke tells the instructor's screen something changed.
func (r *Room) poke() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// Learners are every learner since the room started, in the order the
// instructor needs them: raised hands first (the oldest first), then the
// stuck, then the others connected from the least progress on, then those
// who left; by name within each.
func (r *Room) Learners() []LearnerView {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	out := make([]LearnerView, 0, len(r.learners))
	for _, l := range r.learners {
		v := l.view(now, r.cfg.Stuck)
		v.Progress = r.lessonIndex(v.Lesson)*1000 + v.Step
		out = append(out, v)
	}
	for _, name := range r.roster {
		if _, ok := r.learners[learnerName(name)]; !ok {
			out = append(out, LearnerView{ID: learnerName(name), User: name, Expected: true})
		}
	}
	rank := func(v LearnerView) int {
		switch {
		case v.Expected:
			return 4
		case !v.Connected:
			return 3
		case !v.Hand.IsZero():
			return 0
		case v.Stuck:
			return 1
		}
		return 2
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		switch {
		case !a.Hand.Equal(b.Hand):
			return a.Hand.Before(b.Hand)
		case rank(a) == 2 && a.Progress != b.Progress:
			return a.Progress < b.Progress
		}
		return a.ID < b.ID
	})
	return out
}

// connected counts the learners connected now; r.mu held.
func (r *Room) connected() int {
	n := 0
	for _, l := range r.learners {
		if l.program != nil {
			n++
		}
	}
	return n
}

// Paused is the room's pause message, "" while it runs.
func (r *Room) Paused() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.paused
}

// programs are the connected learners' programs: those named, or all.
func (r *Room) programs(ids []string) []*tea.Program {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*tea.Program
	for id, l := range r.learners {
		if l.program == nil {
			continue
		}
		if len(ids) > 0 && !slices.Contains(ids, id) {
			continue
		}
		out = append(out, l.program)
	}
	return out
}
