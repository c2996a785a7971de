package workshop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2/bubbletea"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/ui"
)

// learnerNamespace is a learner's within the room's: ws_<id>, the room's
// own, so that their databases go when they leave.
func learnerNamespace(id string) pg.Namespace { return pg.OwnNamespace("ws").Sub(id) }

// learner is one learner of the room, from their first connection on: kept
// after they leave, so the instructor sees who left and a reconnection
// finds their place.
type learner struct {
	id, user, key string        // key: the fingerprint of the key they came with
	door          string        // how their last session came in: ssh or web
	ns            pg.Namespace  // their databases (ws_ana_outbox, ws_ana_naive), dropped as they leave; its prefix names their role
	dir           string        // their progress and place in the course
	active        bool          // a session of theirs runs (cleanup included)
	cleaned       chan struct{} // closed when that session's cleanup is done
	program       *tea.Program
	srv           *pg.Server // the server as their role sees it, while connected
	joined        time.Time
	lastInput     time.Time
	state         ui.LearnerState
	stepSince     time.Time
	hinted        bool // the hint was shown on this step
	hints         int  // steps whose hint was shown
	passed        int  // steps passed in this room

	// told is what their screen says when their session starts: the name
	// they got instead of the one they asked for, a lesson the instructor
	// moved them to while they were away.
	told []string
	// end ends their session as their own q would (the instructor's e).
	end context.CancelFunc
	// frame is their screen as last drawn, for the instructor's look over
	// their shoulder; watched says the instructor is looking.
	frame   string
	watched bool
	// hand is when they raised their hand (zero: it is down), and what
	// they said with it.
	hand     time.Time
	handText string
	hands    int   // hands raised in this room
	words    words // their language's, for what the room tells them
	// stepTimes are the steps they passed and how long each took.
	stepTimes []stepTime
	// quiz is each lesson's quiz as they first answered it.
	quiz quizzes
}

// LearnerView is one line of the instructor's screen.
type LearnerView struct {
	ID, User      string
	Door          string // ssh or web: how they came in last
	Connected     bool
	Lesson        string
	Step, Steps   int // Step from 1
	Place         lessons.Place
	OnStep        time.Duration
	Checks, Total int
	Hints, Passed int
	Idle, Stuck   bool
	Ready         bool // the simulator runs (its scene built): keys act
	// Hand is when they raised their hand (zero: down), HandText what
	// they said with it.
	Hand     time.Time
	HandText string
	// Progress orders learners by how far they are: the lesson's place in
	// the course, then the step.
	Progress int
	// Expected: a name of --roster who has not joined yet.
	Expected bool
}

// idleAfter is how long without a key makes a connected learner idle.
const idleAfter = 2 * time.Minute

func (l *learner) view(now time.Time, stuck time.Duration) LearnerView {
	v := LearnerView{ID: l.id, User: l.user, Door: l.door, Connected: l.program != nil, Lesson: l.state.Lesson, Step: l.state.Step + 1, Steps: l.state.Steps,
		Place: l.state.Place, Checks: l.state.ChecksPassing, Total: l.state.ChecksTotal, Hints: l.hints, Passed: l.passed, Ready: l.state.Running}
	if !l.stepSince.IsZero() {
		v.OnStep = now.Sub(l.stepSince)
	}
	v.Idle = v.Connected && now.Sub(l.lastInput) > idleAfter
	v.Stuck = v.Connected && v.Place == lessons.PlaceStep && v.OnStep > stuck
	v.Hand, v.HandText = l.hand, l.handText
	return v
}

// place is where a learner is in the course, kept in their directory so a
// reconnection (or the next room on this data directory) resumes there.
type place struct {
	Lesson string `json:"lesson"`
	Step   int    `json:"step"` // the step to resume at, from 0
	Done   bool   `json:"done"` // the lesson is done: resume at the next
}

const placeFile = "place.json"

func (l *learner) loadPlace() place {
	var p place
	if b, err := os.ReadFile(filepath.Join(l.dir, placeFile)); err == nil {
		_ = json.Unmarshal(b, &p) // a damaged file starts the course over
	}
	return p
}

func (l *learner) savePlace(p place) {
	b, _ := json.Marshal(p)
	tmp := filepath.Join(l.dir, placeFile+".tmp")
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, filepath.Join(l.dir, placeFile))
	}
}

// errFull says the room has as many learners as --max-learners.
var errFull = errors.New("the room is full")

// errClosed says the room is closing.
var errClosed = errors.New("the room is closing")

// door is how a session comes into the room (SSH, the web page): who it
// says it is, and the learner's program's input, output and window sizes.
type door struct {
	kind      string // ssh or web
	user, key string // the name asked for; the key's fingerprint ("" without one)
	ctx       context.Context
	out       io.Writer // where the room says why it refused or ended a session
	opts      []tea.ProgramOption
	windows   <-chan ssh.Window
	// hangUp ends the session (refused: false), while the room still
	// counts it: a closing room waits for it.
	hangUp func(ok bool)
}

// admit finds the learner a session is, or makes one: the name it asked
// for, or with that name already connected, the name and the key's
// fingerprint (a counter without a key).
func (r *Room) admit(d door, w words) (*learner, error) {
	name, key := learnerName(d.user), d.key
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cfg.Anonymous {
		// Whatever they typed is not kept: a new learner each session.
		r.anonymous++
		name = anonymousPrefix + strconv.Itoa(r.anonymous)
		d.user = name
	}
	// A learner back while their last session's cleanup (its simulation
	// closed, its databases dropped) still runs is the same learner:
	// wait for it rather than take them for a second one of the name.
	for l := r.learners[name]; l != nil && l.active && l.program == nil && l.cleaned != nil; l = r.learners[name] {
		done := l.cleaned
		r.mu.Unlock()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
		case <-d.ctx.Done():
		}
		r.mu.Lock()
		if !l.active || d.ctx.Err() != nil {
			break
		}
	}
	if r.closed {
		return nil, errClosed
	}
	if r.connected() >= r.cfg.MaxLearners {
		return nil, errFull
	}
	id := name
	if l := r.learners[id]; l != nil && l.active {
		id = name + "_" + shortKey(key)
		for n := 2; r.learners[id] != nil && r.learners[id].active; n++ {
			id = fmt.Sprintf("%s_%d", name, n)
		}
	}
	l := r.learners[id]
	if l == nil {
		l = &learner{id: id, user: d.user, ns: learnerNamespace(id), dir: filepath.Join(r.dir, "learners", id), joined: r.now()}
		// What an earlier room on this data directory counted goes on.
		st := loadStats(l.dir)
		l.passed, l.hints, l.hands, l.stepTimes, l.quiz = st.Passed, st.Hints, st.Hands, st.Steps, st.Quiz
		r.learners[id] = l
	}
	if id != name {
		l.told = append(l.told, fmt.Sprintf(w.renamed, name, id))
	}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return nil, fmt.Errorf("workshop: %w", err)
	}
	l.active, l.key, l.door, l.lastInput = true, key, d.kind, r.now()
	l.cleaned = make(chan struct{})
	r.sessions.Add(1)
	return l, nil
}

// shortKey is 8 characters of a fingerprint, as an id's suffix ("nokey"
// without one).
func shortKey(fp string) string {
	s := learnerName(strings.TrimPrefix(fp, "SHA256:"))
	if fp == "" || len(s) < 8 {
		return "nokey"
	}
	return s[:8]
}

// handle is one SSH session: a learner's simulator from connection to
// hang-up.
func (r *Room) handle(sess ssh.Session) {
	lang := r.cfg.Lang
	for _, e := range sess.Environ() {
		if v, ok := strings.CutPrefix(e, "LANG="); ok {
			if l, err := lessons.ParseLang(v); err == nil {
				lang = l
			}
		}
	}
	w := wordsFor(lang)
	_, windows, isPty := sess.Pty()
	if !isPty {
		fmt.Fprint(sess.Stderr(), w.noPty)
		_ = sess.Exit(1)
		return
	}
	hangUp := func(ok bool) {
		if ok {
			_ = sess.Exit(0)
		} else {
			_ = sess.Exit(1)
		}
	}
	r.enter(door{kind: "ssh", user: sess.User(), key: fingerprint(sess), ctx: sess.Context(), out: sess, opts: bubbletea.MakeOptions(sess), windows: windows, hangUp: hangUp}, lang, w)
}

// enter admits a session through its door and runs its learner's
// simulator until they leave, then hangs up; a session the room refuses
// is told why on d.out.
func (r *Room) enter(d door, lang string, w words) {
	l, err := r.admit(d, w)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, errFull) {
			msg = fmt.Sprintf(w.full, r.cfg.MaxLearners)
		} else if errors.Is(err, errClosed) {
			msg = w.closing
		}
		fmt.Fprint(d.out, strings.ReplaceAll(msg, "\n", "\r\n"))
		d.hangUp(false)
		return
	}
	defer r.sessions.Done()
	r.play(d, l, lang, w)
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		// On the terminal the learner is back to: why their session ended.
		fmt.Fprint(d.out, strings.ReplaceAll(w.closedBye, "\n", "\r\n"))
	}
	d.hangUp(true)
}

// play runs the learner's simulator on the session until they quit or
// hang up, then ends everything of theirs: actors, connections, databases.
func (r *Room) play(d door, l *learner, lang string, w words) {
	defer r.left(l)
	opts := ui.Options{DBPrefix: l.ns.Prefix(), Lang: lang, ProgressPath: filepath.Join(l.dir, lessons.ProgressFile), NoRestartPG: w.noRestart, NoPSQL: true}
	opts.Lesson, opts.Step = r.resume(l)
	ctx, cancel := context.WithCancel(d.ctx)
	defer cancel()
	r.mu.Lock()
	l.end, l.words = cancel, w
	r.mu.Unlock()
	// The learner's databases, role and sessions are the room's to drop
	// (the learner's server is an external one to the simulator), after
	// Model.Close has ended the simulation's actors and pools.
	defer r.dropLearner(l)
	srv, err := r.learnerRole(ctx, l.ns)
	if err != nil {
		fmt.Fprintf(d.out, "outboxlab: %v\r\n", err)
		return
	}
	r.mu.Lock()
	l.srv = srv
	r.mu.Unlock()
	m, err := ui.NewModel(ctx, srv, opts)
	if err != nil {
		msg := fmt.Sprintf("outboxlab: %v\n", err)
		if OverBudget(err) {
			msg = fmt.Sprintf(w.overBudget, perLearner())
		}
		fmt.Fprint(d.out, strings.ReplaceAll(msg, "\n", "\r\n"))
		return
	}
	defer func() { _ = m.Close() }()
	popts := append(slices.Clip(d.opts), tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithFPS(30))
	r.mu.Lock()
	told := append([]string{fmt.Sprintf(w.joined, l.id)}, l.told...)
	l.told = nil
	r.mu.Unlock()
	pause := r.pauseNow()
	lm := learnerModel{inner: m, room: r, l: l, w: w, paused: pause.text, isPaused: pause.text != "" || pause.standard, closeAt: r.closingAt()}
	lm = lm.tell(strings.Join(told, " · "))
	p := tea.NewProgram(lm, popts...)
	r.mu.Lock()
	l.program = p
	closing := r.closed
	r.mu.Unlock()
	if closing {
		// The room began to close while this one started: it quits with
		// the others.
		p.Quit()
	}
	defer func() {
		r.mu.Lock()
		l.program = nil
		r.mu.Unlock()
		r.poke()
	}()
	r.met.connected.Inc()
	defer r.met.connected.Dec()
	r.poke()
	go func() {
		for {
			select {
			case <-ctx.Done():
				p.Quit()
				return
			case win := <-d.windows:
				p.Send(tea.WindowSizeMsg{Width: win.Width, Height: win.Height})
			}
		}
	}()
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		r.logf("%s: %v", l.id, err)
	}
	p.Kill()
	cancel()
}

// dropLearner drops what the learner's session made on the server: their
// databases, then their role and whatever session of it is left (a psql of
// theirs).
func (r *Room) dropLearner(l *learner) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = l.ns.DropAll(ctx, r.srv)
	r.mu.Lock()
	l.srv = nil
	r.mu.Unlock()
	if err := r.dropLearnerRole(ctx, l.ns.Prefix()); err != nil {
		r.logf("%s: %v", l.id, err)
	}
	r.wakeSpares()
}

// left marks the learner's session over, its cleanup done.
func (r *Room) left(l *learner) {
	r.mu.Lock()
	l.active = false
	close(l.cleaned)
	if r.cfg.NoReport && r.learners[l.id] == l {
		// Nothing of theirs outlives the session.
		delete(r.learners, l.id)
		_ = os.RemoveAll(l.dir)
	}
	r.mu.Unlock()
	r.poke()
}

// resume is where a learner starts: their place in the course, else the
// first lesson they have not done.
func (r *Room) resume(l *learner) (string, int) {
	p := l.loadPlace()
	if i := r.lessonIndex(p.Lesson); i >= 0 {
		if !p.Done {
			return p.Lesson, p.Step
		}
		if i+1 < len(r.course) {
			return r.course[i+1].Name, 0
		}
	}
	prog, _ := lessons.LoadProgress(filepath.Join(l.dir, lessons.ProgressFile))
	for _, c := range r.course {
		if prog == nil || !prog.Done(c.Name) {
			step := 0
			if prog != nil {
				step = prog.Steps(c.Name)
			}
			return c.Name, step
		}
	}
	return r.course[0].Name, 0
}

func (r *Room) lessonIndex(name string) int {
	for i, c := range r.course {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// report takes a learner's state after a message: the times on the step,
// hints, steps passed, and their place for a reconnection.
func (r *Room) report(l *learner, st ui.LearnerState, input bool) {
	now := r.now()
	r.mu.Lock()
	prev := l.state
	if input {
		l.lastInput = now
	}
	if st == prev {
		r.mu.Unlock()
		return
	}
	var passedIn time.Duration
	if st.Lesson != prev.Lesson || st.Step != prev.Step {
		l.stepSince, l.hinted = now, false
	}
	if st.HintShown && !l.hinted {
		l.hinted = true
		l.hints++
	}
	passed := st.Lesson == prev.Lesson && st.Step == prev.Step && prev.Place == lessons.PlaceStep && st.Place == lessons.PlacePassed
	if passed {
		l.passed++
		passedIn = now.Sub(l.stepSince)
		l.stepTimes = append(l.stepTimes, stepTime{Lesson: st.Lesson, Step: st.Step + 1, Seconds: passedIn.Seconds()})
	}
	hinted := l.hinted && !prev.HintShown && st.HintShown
	// One more question answered on the same lesson's quiz: right if the
	// count of right ones went up with it.
	answered := false
	if st.Lesson == prev.Lesson && st.QuizAnswered == prev.QuizAnswered+1 && st.Place == lessons.PlaceQuiz {
		answered = l.quiz.answer(st.Lesson, st.QuizTotal, st.QuizAnswered-1, st.QuizRight > prev.QuizRight)
	}
	l.state = st
	if passed || hinted || answered {
		l.saveStats()
	}
	r.mu.Unlock()
	if passed {
		r.met.stepPassed(passedIn)
	}
	if st.Lesson != "" && (st.Lesson != prev.Lesson || st.Step != prev.Step || st.Place != prev.Place) {
		pl := place{Lesson: st.Lesson, Step: st.Step, Done: st.Place == lessons.PlaceDone}
		if st.Place == lessons.PlacePassed {
			pl.Step++
		}
		if st.Place == lessons.PlaceQuiz {
			pl.Step = st.Steps - 1
		}
		l.savePlace(pl)
	}
	r.poke()
}
