package ui

// play.go is `outboxlab play`: a scene's script or a lesson's solutions
// played by themselves, with captions paced for reading.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

// playPage plays a scene (lesson nil) or a lesson (its steps' solutions,
// then its quiz) by itself: the caption on screen, the tagged tick that
// paces it, and how it ends. It needs no keys: space pauses, q quits.
type playPage struct {
	lesson *lessonPage // the lesson played, nil for a scene
	play   playState
}

// playState is what play shows and how far it got.
type playState struct {
	caption  string
	delay    time.Duration
	tag      int
	paused   bool
	ending   bool
	whyShown bool  // play captioned the passed step's why
	err      error // play could not finish (a solution that did not pass)
}

// playTickMsg drives `outboxlab play`; a stale tag is dropped.
type playTickMsg struct{ tag int }

func (p *playPage) prepare(m *Model) (scenes.Settings, []scenes.Step) {
	if p.lesson != nil {
		return p.lesson.prepare(m)
	}
	return (&simulatorPage{}).prepare(m)
}

func (p *playPage) ready(m *Model) tea.Cmd {
	if p.lesson == nil {
		p.play.caption = m.scene.TitleIn(m.opts.Lang) + ": " + oneLine(m.scene.TeachesIn(m.opts.Lang))
		p.play.delay = p.readTime(*m, p.play.caption)
		return p.schedule()
	}
	cmd := p.lesson.ready(m)
	p.stepCaption(m)
	return cmd // the step's checks schedule the next move when they return
}

// stepCaption captions a step as it begins: its title and task, long
// enough to read what the lesson pane says of it.
func (p *playPage) stepCaption(m *Model) {
	if m.lesson.stage != stageStep {
		return
	}
	st := m.lesson.current()
	lb := m.lesson.lang()
	p.play.caption = fmt.Sprintf("%s %d/%d · %s: %s", lb.Step, m.lesson.step+1, len(m.lesson.lesson.Steps), st.Title, oneLine(st.Task))
	text := st.Read + " " + st.Task
	if m.lesson.step == 0 {
		text += " " + m.lesson.lesson.Intro
	}
	p.play.delay = p.readTime(*m, text)
}

// schedule arms play's next move after the current caption's pause.
func (p *playPage) schedule() tea.Cmd {
	p.play.tag++
	tag := p.play.tag
	return tea.Tick(p.play.delay, func(time.Time) tea.Msg { return playTickMsg{tag} })
}

// readTime is how long a caption stays: long enough to read it (about 200
// words a minute, and a moment more), scaled by --speed.
func (p *playPage) readTime(m Model, text string) time.Duration {
	words := len(strings.Fields(text))
	d := time.Second + time.Duration(words)*300*time.Millisecond
	speed := m.opts.Speed
	if speed <= 0 {
		speed = 1
	}
	return time.Duration(float64(d) / speed)
}

// captionFor captions an action with what it added to the timeline.
func (p *playPage) captionFor(m Model, a action, entries []sim.Entry) {
	var text []string
	for _, e := range entries {
		// The caption is in the screen's language, as the timeline is.
		say := m.timeline.explain(e)
		switch {
		case say == "":
		case strings.HasPrefix(say, e.Actor+" "):
			text = append(text, say)
		default:
			text = append(text, e.Actor+": "+say)
		}
	}
	switch {
	case len(text) > 0:
		p.play.caption = strings.Join(text, " · ")
		p.play.delay = p.readTime(m, p.play.caption)
	case a.kind == actDo:
		p.play.caption = "→ " + a.step.String()
		p.play.delay = p.readTime(m, p.play.caption)
	default:
		p.play.delay = p.readTime(m, "")
	}
}

func (p *playPage) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch msg.String() {
	case "q":
		return tea.Quit, true
	case "space":
		p.play.paused = !p.play.paused
		if p.play.paused {
			m.notice = m.st.Words.T("paused: space resumes")
			m.updateKeys()
			return nil, true
		}
		m.notice = ""
		p.play.delay = 0
		m.updateKeys()
		return p.schedule(), true
	}
	return nil, true // nothing else is needed
}

func (p *playPage) message(m *Model, msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case playTickMsg:
		if msg.tag != p.play.tag || p.play.paused {
			return nil, true
		}
		return p.next(m), true
	case progressSavedMsg:
		return nil, true // a played lesson saves no progress
	case chaosDoneMsg:
		var cmd tea.Cmd
		if p.lesson != nil {
			cmd, _ = p.lesson.message(m, msg)
		}
		if msg.err != nil {
			// No table to check: next says the step did not pass, and ends.
			cmd = tea.Batch(cmd, p.schedule())
		}
		return cmd, true
	case buildFailedMsg:
		// No simulation to play: say why and end, rather than wait.
		p.play.err = msg.err
		p.play.caption = "✗ " + oneLine(msg.err.Error())
		return p.end(m), true
	}
	return nil, false
}

func (p *playPage) done(m *Model, msg actionDoneMsg) tea.Cmd {
	var cmd tea.Cmd
	if p.lesson != nil {
		cmd = p.lesson.done(m, msg)
	} else {
		cmd = (&simulatorPage{}).done(m, msg) // the scene's script is done: said as before
	}
	if a := msg.act; msg.eval == nil && a.kind != actEval && a.kind != actScript {
		p.captionFor(*m, a, msg.entries)
	}
	if len(m.queue) == 0 {
		cmd = tea.Batch(cmd, p.schedule())
	}
	return cmd
}

// next is play's next move: the next command of the script (a scene's,
// or the step's solution), the next step once the why was read, the quiz
// answered question by question, and at the end, quit.
func (p *playPage) next(m *Model) tea.Cmd {
	if m.sim == nil || m.busy || len(m.queue) > 0 {
		return nil // what runs now schedules the next move when it returns
	}
	if p.play.ending {
		return tea.Quit
	}
	if p.lesson == nil {
		if m.pos.Script < len(m.scene.Steps) || m.pos.Run != "" {
			return m.enqueue(action{kind: actUnit, user: true})
		}
		p.play.caption = "✓ " + m.scene.TitleIn(m.opts.Lang)
		return p.end(m)
	}
	l := &m.lesson
	switch l.stage {
	case stageStep:
		if m.pos.Script < len(l.current().Solution) || m.pos.Run != "" {
			return m.enqueue(action{kind: actUnit, user: true})
		}
		if l.current().Chaos > 0 && !m.overlays.has(overlayChaos) {
			// The step's solution is the run: its table passes the checks.
			p.play.caption = "→ " + m.st.Words.T("%d schedules in %s mode", l.current().Chaos, l.current().Settings.Mode)
			return m.startChaos()
		}
		if m.overlays.has(overlayChaos) && m.chaos.running() {
			return nil // its table checks the step, which schedules the next move
		}
		p.play.err = fmt.Errorf("play %s: step %d (%s): the solution did not pass the checks", l.lesson.Name, l.step+1, l.current().Title)
		if m.err != nil {
			p.play.err = errors.Join(p.play.err, m.err)
		}
		p.play.caption = "✗ " + p.play.err.Error()
		return p.end(m)
	case stagePassed:
		if m.pos.Script < len(l.current().Solution) || m.pos.Run != "" {
			// Play the solution to its end, as lessons.Step.Solve does.
			return m.enqueue(action{kind: actUnit, user: true})
		}
		if !p.play.whyShown {
			lb := l.lang()
			p.play.whyShown = true
			p.play.caption = fmt.Sprintf("✓ %s. %s: %s", lb.Passed, lb.Why, oneLine(l.current().Why))
			p.play.delay = p.readTime(*m, p.play.caption)
			return tea.Batch(m.resize(), p.schedule())
		}
		p.play.whyShown = false
		cmd := p.lesson.next(m)
		switch l.stage {
		case stageQuiz:
			p.play.delay = p.readTime(*m, p.questionText(*m))
			return tea.Batch(cmd, p.schedule())
		case stageStep:
			p.stepCaption(m) // a step on the same simulator; a fresh one's is captioned when built
		}
		return cmd // the step's checks (or its fresh simulator) schedule the next move
	case stageQuiz:
		if !l.answered {
			l.choose(l.lesson.Quiz[l.question].Answer())
			l.answer()
			c := l.lesson.Quiz[l.question].Choices[l.choice]
			p.play.caption = "✓ " + oneLine(c.Text) + " " + oneLine(c.Because)
			p.play.delay = p.readTime(*m, p.play.caption)
			return tea.Batch(m.resize(), p.schedule())
		}
		if l.nextQuestion() {
			p.play.caption = p.questionText(*m)
			p.play.delay = p.readTime(*m, p.play.caption)
			return tea.Batch(m.resize(), p.schedule())
		}
		p.play.caption = "✓ " + labelsFor(l.lesson.Lang).Done + ": " + l.lesson.Title
		return tea.Batch(m.resize(), p.end(m))
	}
	return p.end(m)
}

// questionText is the question on screen with its choices, for a caption.
func (p *playPage) questionText(m Model) string {
	q := m.lesson.lesson.Quiz[m.lesson.question]
	parts := []string{oneLine(q.Text)}
	for i, c := range q.Choices {
		parts = append(parts, fmt.Sprintf("%d. %s", i+1, oneLine(c.Text)))
	}
	return strings.Join(parts, "  ")
}

// end holds the last frame a moment, then quits.
func (p *playPage) end(m *Model) tea.Cmd {
	p.play.ending = true
	p.play.delay = p.readTime(*m, p.play.caption) + p.readTime(*m, "")
	return tea.Batch(m.resize(), p.schedule())
}

// enable leaves play the keys it needs: space pauses it, q quits.
func (p *playPage) enable(m *Model) {
	k := &m.keys
	for _, b := range k.all() {
		b.SetEnabled(false)
	}
	k.Quit.SetEnabled(true)
	k.Play.SetEnabled(m.phase == phaseRunning)
	if p.play.paused {
		k.Play.SetHelp(m.st.Words.Word("space"), m.st.Words.T("resume"))
	} else {
		k.Play.SetHelp(m.st.Words.Word("space"), m.st.Words.T("pause"))
	}
}

// layout puts the caption over the help line, the size of its text, and
// the lesson's or the simulator's panes above it.
func (p *playPage) layout(m Model, s screen) screen {
	ch := min(3, len(p.captionLines(s.body.w)))
	s.caption = rect{0, s.body.y + s.body.h - ch, s.body.w, ch}
	s.body.h -= ch
	if p.lesson != nil {
		return p.lesson.layout(m, s)
	}
	return m.mainLayout(s)
}

func (p *playPage) body(m Model, l screen) string {
	if p.lesson != nil {
		return p.lesson.body(m, l)
	}
	return m.mainBody(l)
}

// caption is drawn under the body, and under the chaos run play plays.
func (p *playPage) caption(m Model, l screen) string {
	return p.captionView(m, l.caption.w, l.caption.h)
}

// ownsKeys: play needs no keys but its own two, over its chaos run too.
func (p *playPage) ownsKeys() bool { return true }

func (p *playPage) shownLesson() *lessonPage { return p.lesson }

// learn plays the lesson: a played lesson saves no progress.
func (p *playPage) learn(lp *lessonPage) (page, bool) {
	p.lesson = lp
	return p, false
}

func (p *playPage) failed() error { return p.play.err }

// script is the scene's, or in a played lesson the current step's
// solution.
func (p *playPage) script(m Model) []scenes.Step {
	if p.lesson == nil {
		return m.scene.Steps
	}
	if m.lesson.stage <= stagePassed {
		return m.lesson.current().Solution
	}
	return nil
}

func (p *playPage) status(m Model) (string, string) {
	label := ""
	if p.lesson != nil {
		label = m.lesson.lesson.Name
	}
	if p.play.paused {
		return m.st.Words.T("⏸ paused"), label
	}
	return m.st.Words.T("▶ playing"), label
}

// captionLines is play's caption wrapped to the width.
func (p *playPage) captionLines(w int) []string {
	if p.play.caption == "" {
		return []string{""}
	}
	return strings.Split(lipgloss.Wrap(unmark(p.play.caption), max(10, w-2), " "), "\n")
}

// unmark drops the Markdown marks a lesson's text carries (`code`,
// **bold**): a caption is plain text, and raw backticks read as noise.
var unmark = strings.NewReplacer("`", "", "**", "").Replace

// captionView draws the caption, h lines, full width.
func (p *playPage) captionView(m Model, w, h int) string {
	lines := p.captionLines(w)
	if len(lines) > h {
		lines = lines[:h]
		lines[h-1] = fitLine(lines[h-1]+"…", w-2)
	}
	out := make([]string, h)
	for i := range out {
		t := ""
		if i < len(lines) {
			t = lines[i]
		}
		out[i] = m.st.Lesson.Caption.Render(fitLine(" "+t, w))
	}
	return strings.Join(out, "\n")
}

// chaosStep is the played lesson's chaos step, started by next.
func (p *playPage) chaosStep(m Model) *lessons.Step {
	if p.lesson == nil {
		return nil
	}
	return p.lesson.chaosStep(m)
}
