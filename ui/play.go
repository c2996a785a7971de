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
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/overlay/chaosrun"
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
	pages    []string // the rest of the opening caption, a page at a time
	delay    time.Duration
	tag      int
	paused   bool
	ending   bool
	held     bool  // the last frame stays, "the end" said on it (--hold)
	over     bool  // played to its end and passed (its last caption on screen)
	whyShown bool  // play captioned the passed step's why
	err      error // play could not finish (a solution that did not pass)
}

// playTickMsg drives `outboxlab play`; a stale tag is dropped.
type playTickMsg struct{ tag int }

func (p *playPage) prepare(c pageCtx) (scenes.Settings, []scenes.Step) {
	if p.lesson != nil {
		return p.lesson.prepare(c)
	}
	return (&simulatorPage{}).prepare(c)
}

func (p *playPage) ready(c pageCtx) tea.Cmd {
	if p.lesson == nil {
		sc := c.run.scene()
		pages := captionPages(sc.TitleIn(c.opts.Lang)+": "+screen.OneLine(sc.TeachesIn(c.opts.Lang)), captionPage)
		p.play.caption, p.play.pages = pages[0], pages[1:]
		p.play.delay = p.readTime(c, p.play.caption)
		return p.schedule()
	}
	cmd := p.lesson.ready(c)
	p.stepCaption(c)
	return cmd // the step's checks schedule the next move when they return
}

// stepCaption captions a step as it begins: its title and task, long
// enough to read what the lesson pane says of it.
func (p *playPage) stepCaption(c pageCtx) {
	l := &c.panes.lesson
	if l.Place() != lessons.PlaceStep {
		return
	}
	if l.OnIntro() {
		// The introduction's page first, as long as it takes to read.
		p.play.caption = l.Lesson().Title
		p.play.delay = p.readTime(c, l.Lesson().Title+" "+l.Lesson().Intro)
		return
	}
	st := l.Current()
	lb := l.Labels()
	p.play.caption = fmt.Sprintf("%s %d/%d · %s: %s", lb.Step, l.Step()+1, len(l.Lesson().Steps), st.Title, screen.OneLine(st.Task))
	p.play.delay = p.readTime(c, st.Read+" "+st.Task)
}

// schedule arms play's next move after the current caption's pause.
func (p *playPage) schedule() tea.Cmd {
	p.play.tag++
	tag := p.play.tag
	return tea.Tick(p.play.delay, func(time.Time) tea.Msg { return playTickMsg{tag} })
}

// readTime is how long a caption stays: long enough to read it (about 200
// words a minute, and a moment more), scaled by --speed.
func (p *playPage) readTime(c pageCtx, text string) time.Duration {
	words := len(strings.Fields(text))
	d := time.Second + time.Duration(words)*300*time.Millisecond
	speed := c.opts.Speed
	if speed <= 0 {
		speed = 1
	}
	return time.Duration(float64(d) / speed)
}

// captionFor captions an action with what it added to the timeline.
func (p *playPage) captionFor(c pageCtx, a action, entries []sim.Entry) {
	var text []string
	for _, e := range entries {
		// The caption is in the screen's language, as the timeline is.
		say := c.panes.timeline.Explain(e)
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
		p.play.delay = p.readTime(c, p.play.caption)
	case a.kind == actDo:
		p.play.caption = "→ " + a.step.String()
		p.play.delay = p.readTime(c, p.play.caption)
	default:
		p.play.delay = p.readTime(c, "")
	}
}

func (p *playPage) key(c pageCtx, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch msg.String() {
	case "q":
		return tea.Quit, true
	case "space":
		if p.play.held {
			return nil, true // the end: nothing left to pause
		}
		p.play.paused = !p.play.paused
		if p.play.paused {
			c.state.say(c.st.Words.T("paused: space resumes"))
			c.run.updateKeys()
			return nil, true
		}
		c.state.say("")
		p.play.delay = 0
		c.run.updateKeys()
		return p.schedule(), true
	}
	return nil, true // nothing else is needed
}

func (p *playPage) message(c pageCtx, msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case playTickMsg:
		if msg.tag != p.play.tag || p.play.paused {
			return nil, true
		}
		return p.next(c), true
	case progressSavedMsg:
		return nil, true // a played lesson saves no progress
	case chaosrun.DoneMsg:
		var cmd tea.Cmd
		if p.lesson != nil {
			cmd, _ = p.lesson.message(c, msg)
		}
		if msg.Err != nil {
			// No table to check: next says the step did not pass, and ends.
			cmd = tea.Batch(cmd, p.schedule())
		}
		return cmd, true
	case buildFailedMsg:
		// No simulation to play: say why and end, rather than wait.
		p.play.err = msg.err
		p.play.caption = "✗ " + screen.OneLine(msg.err.Error())
		return p.end(c), true
	}
	return nil, false
}

func (p *playPage) done(c pageCtx, msg actionDoneMsg) tea.Cmd {
	var cmd tea.Cmd
	if p.lesson != nil {
		cmd = p.lesson.done(c, msg)
	} else {
		cmd = (&simulatorPage{}).done(c, msg) // the scene's script is done: said as before
	}
	if a := msg.act; msg.eval == nil && a.kind != actEval && a.kind != actScript {
		p.captionFor(c, a, msg.entries)
	}
	if len(c.state.queue) == 0 {
		cmd = tea.Batch(cmd, p.schedule())
	}
	return cmd
}

// next is play's next move: the next command of the script (a scene's,
// or the step's solution), the next step once the why was read, the quiz
// answered question by question, and at the end, quit.
func (p *playPage) next(c pageCtx) tea.Cmd {
	run := c.run
	if !run.up() || !c.state.idle() {
		return nil // what runs now schedules the next move when it returns
	}
	if p.play.ending {
		if !p.play.held && c.opts.Hold > 0 {
			// The result stays on screen, for a recording or a GIF to end
			// on, the help line down to q.
			p.play.held = true
			p.play.delay = c.opts.Hold
			c.run.updateKeys()
			return tea.Batch(c.run.resize(), p.schedule())
		}
		return tea.Quit
	}
	pos := run.pos()
	if p.lesson == nil {
		sc := run.scene()
		if len(p.play.pages) > 0 {
			// The scene's opening, page by page, before its script.
			p.play.caption, p.play.pages = p.play.pages[0], p.play.pages[1:]
			p.play.delay = p.readTime(c, p.play.caption)
			return tea.Batch(run.resize(), p.schedule())
		}
		if pos.Script < len(sc.Steps) || pos.Run != "" {
			return run.enqueue(action{kind: actUnit, user: true})
		}
		p.play.caption = "✓ " + sc.TitleIn(c.opts.Lang)
		return p.end(c)
	}
	l := &c.panes.lesson
	switch l.Place() {
	case lessons.PlaceStep:
		if l.OnIntro() {
			// The introduction read, the page turns to step 1.
			l.CloseIntro()
			p.stepCaption(c)
			return tea.Batch(run.resize(), p.schedule())
		}
		if pos.Script < len(l.Current().Solution) || pos.Run != "" {
			return run.enqueue(action{kind: actUnit, user: true})
		}
		chaosOpen, chaosRunning := run.chaos()
		if l.Current().Chaos > 0 && !chaosOpen {
			// The step's solution is the run: its table passes the checks.
			p.play.caption = "→ " + c.st.Words.T("%d schedules in %s mode", l.Current().Chaos, l.Current().Settings.Mode)
			return run.startChaos()
		}
		if chaosOpen && chaosRunning {
			return nil // its table checks the step, which schedules the next move
		}
		p.play.err = fmt.Errorf("play %s: step %d (%s): the solution did not pass the checks", l.Lesson().Name, l.Step()+1, l.Current().Title)
		if err := run.err(); err != nil {
			p.play.err = errors.Join(p.play.err, err)
		}
		p.play.caption = "✗ " + p.play.err.Error()
		return p.end(c)
	case lessons.PlacePassed:
		if pos.Script < len(l.Current().Solution) || pos.Run != "" {
			// Play the solution to its end, as lessons.Step.Solve does.
			return run.enqueue(action{kind: actUnit, user: true})
		}
		if !p.play.whyShown {
			lb := l.Labels()
			p.play.whyShown = true
			p.play.caption = fmt.Sprintf("✓ %s. %s: %s", lb.Passed, lb.Why, screen.OneLine(l.Current().Why))
			p.play.delay = p.readTime(c, p.play.caption)
			return tea.Batch(run.resize(), p.schedule())
		}
		p.play.whyShown = false
		cmd := p.lesson.next(c)
		switch l.Place() {
		case lessons.PlaceQuiz:
			p.play.delay = p.readTime(c, p.questionText(c))
			return tea.Batch(cmd, p.schedule())
		case lessons.PlaceStep:
			p.stepCaption(c) // a step on the same simulator; a fresh one's is captioned when built
		}
		return cmd // the step's checks (or its fresh simulator) schedule the next move
	case lessons.PlaceQuiz:
		if !l.Answered() {
			l.Choose(l.Lesson().Quiz[l.Question()].Answer())
			l.Answer()
			ch := l.Lesson().Quiz[l.Question()].Choices[l.Choice()]
			p.play.caption = "✓ " + screen.OneLine(ch.Text) + " " + screen.OneLine(ch.Because)
			p.play.delay = p.readTime(c, p.play.caption)
			return tea.Batch(run.resize(), p.schedule())
		}
		if l.NextQuestion() {
			p.play.caption = p.questionText(c)
			p.play.delay = p.readTime(c, p.play.caption)
			return tea.Batch(run.resize(), p.schedule())
		}
		p.play.caption = "✓ " + l.DoneLine()
		return tea.Batch(run.resize(), p.end(c))
	}
	return p.end(c)
}

// questionText is the question on screen with its choices, for a caption.
func (p *playPage) questionText(c pageCtx) string {
	l := c.panes.lesson
	q := l.Lesson().Quiz[l.Question()]
	parts := []string{screen.OneLine(q.Text)}
	for i, ch := range q.Choices {
		parts = append(parts, fmt.Sprintf("%d. %s", i+1, screen.OneLine(ch.Text)))
	}
	return strings.Join(parts, "  ")
}

// end holds the last frame a moment, then quits.
func (p *playPage) end(c pageCtx) tea.Cmd {
	p.play.ending, p.play.over = true, p.play.err == nil
	p.play.delay = p.readTime(c, p.play.caption) + p.readTime(c, "")
	return tea.Batch(c.run.resize(), p.schedule())
}

// enable leaves play the keys it needs: space pauses it, q quits.
func (p *playPage) enable(c pageCtx) {
	k, w := c.keys, c.st.Words
	for _, b := range k.all() {
		b.SetEnabled(false)
	}
	k.Quit.SetEnabled(true)
	k.Play.SetEnabled(c.run.booted() && !p.play.held)
	if p.play.paused {
		k.Play.SetHelp(w.Word("space"), w.T("resume"))
	} else {
		k.Play.SetHelp(w.Word("space"), w.T("pause"))
	}
}

// layout puts the caption over the help line, the size of its text, and
// the lesson's or the simulator's panes above it.
func (p *playPage) layout(c pageCtx, s regions) regions {
	ch := min(3, len(p.captionLines(s.body.w)))
	s.caption = rect{0, s.body.y + s.body.h - ch, s.body.w, ch}
	s.body.h -= ch
	if p.lesson != nil {
		return p.lesson.layout(c, s)
	}
	return c.panes.mainLayout(s)
}

func (p *playPage) body(c pageCtx, l regions) string {
	if p.lesson != nil {
		return p.lesson.body(c, l)
	}
	return c.panes.mainBody(c.st, l)
}

// caption is drawn under the body, and under the chaos run play plays.
func (p *playPage) caption(c pageCtx, l regions) string {
	return p.captionView(c.st, l.caption.w, l.caption.h)
}

// failed is why play could not finish what it plays (nil: it did).
func (p *playPage) failed() error { return p.play.err }

// script is the scene's, or in a played lesson the current step's
// solution.
func (p *playPage) script(c pageCtx) []scenes.Step {
	if p.lesson == nil {
		return c.run.scene().Steps
	}
	if l := c.panes.lesson; l.OnStep() {
		return l.Current().Solution
	}
	return nil
}

func (p *playPage) status(c pageCtx) (string, string) {
	label := ""
	if p.lesson != nil {
		label = c.panes.lesson.Lesson().Name
	}
	if p.play.paused {
		return c.st.Words.T("‖ paused"), label
	}
	if p.play.held {
		return c.st.Words.T("■ the end"), label
	}
	return c.st.Words.T("▶ playing"), label
}

// captionPage is the most a caption page holds, in bytes: three lines of
// the narrowest screen (80 columns, the caption's margins off), words
// wrapped whole.
const captionPage = 200

// captionPages cuts a long caption into pages of at most max bytes, whole
// sentences each where a sentence fits: a scene's opening (its title and
// what it teaches) is read a page at a time, each up as long as its words
// take, instead of cut at the caption's three lines and up for all of them.
func captionPages(text string, max int) []string {
	var sentences []string
	cur := ""
	for _, w := range strings.Fields(text) {
		if cur != "" && len(cur)+1+len(w) > max {
			sentences, cur = append(sentences, cur), "" // a sentence longer than a page
		}
		cur = strings.TrimSpace(cur + " " + w)
		if strings.HasSuffix(w, ".") || strings.HasSuffix(w, "!") || strings.HasSuffix(w, "?") {
			sentences, cur = append(sentences, cur), ""
		}
	}
	if cur != "" {
		sentences = append(sentences, cur)
	}
	var pages []string
	page := ""
	for _, s := range sentences {
		switch {
		case page == "":
			page = s
		case len(page)+1+len(s) <= max:
			page += " " + s
		default:
			pages, page = append(pages, page), s
		}
	}
	return append(pages, page)
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
func (p *playPage) captionView(st *Styles, w, h int) string {
	lines := p.captionLines(w)
	if len(lines) > h {
		lines = lines[:h]
		lines[h-1] = screen.FitLine(lines[h-1]+"…", w-2)
	}
	out := make([]string, h)
	for i := range out {
		t := ""
		if i < len(lines) {
			t = lines[i]
		}
		out[i] = st.Lesson.Caption.Render(screen.FitLine(" "+t, w))
	}
	return strings.Join(out, "\n")
}

// chaosStep is the played lesson's chaos step, started by next.
func (p *playPage) chaosStep(c pageCtx) *lessons.Step {
	if p.lesson == nil {
		return nil
	}
	return p.lesson.chaosStep(c)
}
