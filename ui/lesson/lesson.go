package lesson

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// lessonPlace is where the learner is in a lesson.
type lessonPlace int

const (
	placeStep   lessonPlace = iota // doing the step's task; its checks not all passed yet
	placePassed                    // every check passed: the why is shown
	placeQuiz                      // answering the questions
	placeDone                      // the lesson is done
)

// Labels are the few words the lesson pane writes itself, in the lesson's
// language (the keys' help stays English, like the rest of the TUI).
type Labels struct {
	Step, Task, Hint, Keys, Why, Quiz, Question, Passed, Done, Right, Next, Last, Checking, Intro string
	// Crashed and Stalled say an actor begins the step as the step before
	// left it (%s: its name), and the key that moves it.
	Crashed, Stalled string
	// Restart says r starts the step again, with every hint; RestartFrom
	// says where r goes back to when the step builds on an earlier one.
	Restart, RestartFrom string
}

var paneLabels = map[string]Labels{
	"en": {
		Intro: "introduction",
		Step:  "Step", Task: "Task", Hint: "Hint", Keys: "Keys", Why: "Why", Quiz: "Check your understanding",
		Question: "Question", Passed: "step passed", Done: "Lesson done",
		Right: "%d of %d answered right.", Next: "Next: **%s**, `outboxlab --lesson %s` (enter opens it).",
		Last: "That was the last lesson of the course.", Checking: "checking…",
		Crashed: "**%s is still crashed** from the step before: `c` restarts it.",
		Stalled: "**%s is still stalled** from the step before: `s` resumes it.",
		Restart: "`r` starts this step again.", RestartFrom: "`r` starts again from step %d, which this step builds on.",
	},
	"es": {
		Intro: "introducción",
		Step:  "Paso", Task: "Tarea", Hint: "Pista", Keys: "Teclas", Why: "Por qué", Quiz: "Comprueba lo que has aprendido",
		Question: "Pregunta", Passed: "paso superado", Done: "Lección terminada",
		Right: "%d de %d respuestas correctas.", Next: "Siguiente: **%s**, `outboxlab --lesson %s` (enter la abre).",
		Last: "Era la última lección del curso.", Checking: "comprobando…",
		Crashed: "**%s sigue caído** desde el paso anterior: `c` lo reinicia.",
		Stalled: "**%s sigue congelado** desde el paso anterior: `s` lo reanuda.",
		Restart: "`r` vuelve a empezar este paso.", RestartFrom: "`r` vuelve a empezar desde el paso %d, sobre el que se construye este.",
	},
}

// CarryOver notes the actors a step that continues the previous one's
// simulator begins with crashed or stalled.
func (l *Pane) CarryOver(actors []sim.ActorView) {
	l.carriedFrom = nil
	for _, a := range actors {
		if (a.State == sim.Crashed || a.State == sim.Stalled) && !slices.Contains(l.carriedFrom, a.Name) {
			l.carriedFrom = append(l.carriedFrom, a.Name)
		}
	}
	l.RefreshCarried(actors)
}

// RefreshCarried says which of the actors the step began with crashed or
// stalled still are: once restarted or resumed, the note goes.
func (l *Pane) RefreshCarried(actors []sim.ActorView) {
	lb := l.Labels()
	var notes []string
	for _, name := range l.carriedFrom {
		for _, a := range actors {
			if a.Name != name {
				continue
			}
			if a.State == sim.Crashed {
				notes = append(notes, fmt.Sprintf(lb.Crashed, a.Name))
			} else if a.State == sim.Stalled {
				notes = append(notes, fmt.Sprintf(lb.Stalled, a.Name))
			}
			break // compare mode: one line per actor name
		}
	}
	if !slices.Equal(notes, l.carried) {
		l.carried = notes
		l.Render()
	}
}

// LabelsFor are the pane's words in lang (English for a language it does
// not speak).
func LabelsFor(lang string) Labels {
	if l, ok := paneLabels[lang]; ok {
		return l
	}
	return paneLabels["en"]
}

// keyMap are the lesson pane's own keys: they scroll its text, or move
// between a question's choices.
type keyMap struct {
	screen.ScrollKeys
}

func defaultKeyMap(w *catalog.Printer) keyMap {
	return keyMap{screen.NewScrollKeys(w)}
}

// Pane shows the guided lesson: its introduction, the current step
// (what to read, the task, the live status of each check, the hint on
// request, the why once it passes), then the quiz. Without a lesson it
// shows what the scene teaches. The lesson page (package ui's) decides
// when the learner moves on and keeps the course's progress; this pane
// keeps where in the lesson they are, draws it and scrolls.
type Pane struct {
	st      *screen.Styles
	w, h    int
	focused bool
	keys    keyMap

	scene *scenes.Scene // scene mode
	facts []pg.Fact

	lesson   *lessons.Lesson
	position string // "5/12": the lesson's place in the course
	next     *lessons.Lesson
	step     int
	place    lessonPlace
	outcomes []lessons.Outcome // the latest evaluation of the step's checks
	dead     *lessons.Check    // a check that can never hold again: the step cannot pass
	checked  bool              // outcomes are for this step
	showHint bool
	// intro says the lesson's introduction is on screen, a page of its
	// own before step 1: its text and a step's would not both fit 80×24.
	// The step is live under it (its checks run); enter, or any key that
	// works the simulator, turns the page.
	intro bool
	// shown is the data pane tab chose for this step ("" for the one the
	// step names): the narrow layout shows one under the lesson.
	shown    lessons.Pane
	question int
	choice   int
	answered bool
	right    int // questions answered right the first time
	// psql are the commands that open the databases on screen, for a look
	// from another terminal.
	psql []string
	// keyHint is the step's solution as key presses (hint), shown with
	// the hint.
	keyHint string
	hint    KeyHint
	// carried says which actors begin this step crashed or stalled, as the
	// step before left them: otherwise the task reads as if all ran.
	carried     []string
	carriedFrom []string // the actors the step began with crashed or stalled

	body   []string // the scrolling text, rendered
	task   []string // the task, rendered (pinned above the checks)
	offset int
	follow bool // keep the end of the text in view after the next render

	rendered *memo[markdownKey] // Markdown already rendered, by text, width and style
}

// KeyHint writes a step's solution as the keys that do it, the actors on
// screen numbered as the screen's dialogs number them: the keys are the
// root's, so the root gives the pane the table that says them.
type KeyHint func(solution []scenes.Step, actors []sim.ActorView, set scenes.Settings) string

// New is the pane of scene sc, no lesson open: it shows what the scene
// teaches. hint writes a step's keys line.
func New(st *screen.Styles, sc *scenes.Scene, hint KeyHint) Pane {
	return Pane{st: st, scene: sc, hint: hint, keys: defaultKeyMap(st.Words), rendered: newMemo[markdownKey](markdownMemoSize)}
}

// Lesson is the lesson open, nil in scene mode.
func (l Pane) Lesson() *lessons.Lesson { return l.lesson }

// Next is the course's lesson after the open one (nil after the last).
func (l Pane) Next() *lessons.Lesson { return l.next }

// Step is the index of the step on screen (the last one's past the steps).
func (l Pane) Step() int { return l.step }

// Place is where the learner is in the lesson.
func (l Pane) Place() lessons.Place {
	return [...]lessons.Place{placeStep: lessons.PlaceStep, placePassed: lessons.PlacePassed, placeQuiz: lessons.PlaceQuiz, placeDone: lessons.PlaceDone}[l.place]
}

// OnStep says a step is on screen, its task or its why: not the quiz,
// not the lesson's end.
func (l Pane) OnStep() bool { return l.place <= placePassed }

// Checked says the step's checks were evaluated since it began.
func (l Pane) Checked() bool { return l.checked }

// Outcomes are the latest evaluation of the step's checks.
func (l Pane) Outcomes() []lessons.Outcome { return l.outcomes }

// Dead is a check of the step that can never hold again (nil: the step
// may still pass).
func (l Pane) Dead() *lessons.Check { return l.dead }

// SetDead says which check can never hold again (nil: none); the pane
// says so at its foot.
func (l *Pane) SetDead(c *lessons.Check) {
	l.dead = c
	l.clamp()
}

// HintShown says the step's hint is on screen.
func (l Pane) HintShown() bool { return l.showHint }

// KeyHint is the keys line of the hint on screen.
func (l Pane) KeyHint() string { return l.keyHint }

// SetKeyHint sets the keys line the hint shows (StepKeyHint's).
func (l *Pane) SetKeyHint(h string) { l.keyHint = h }

// Question is the quiz's question on screen, from 0.
func (l Pane) Question() int { return l.question }

// Choice is the choice selected in the question on screen.
func (l Pane) Choice() int { return l.choice }

// Answered says the question on screen is answered.
func (l Pane) Answered() bool { return l.answered }

// Right is how many questions were answered right the first time.
func (l Pane) Right() int { return l.right }

// PSQL are the commands that open the databases on screen, for a look
// from another terminal.
func (l Pane) PSQL() []string { return l.psql }

// SetPSQL sets them.
func (l *Pane) SetPSQL(cmds []string) { l.psql = cmds }

// Facts are what the server running the scene says of itself.
func (l Pane) Facts() []pg.Fact { return l.facts }

// SetFacts sets them.
func (l *Pane) SetFacts(f []pg.Fact) { l.facts = f }

// SetFocused draws the pane's title as the focused pane's.
func (l *Pane) SetFocused(focused bool) { l.focused = focused }

// ScrollKey says msg is one of the keys that scroll the pane's text.
func (l Pane) ScrollKey(msg tea.KeyPressMsg) bool {
	return key.Matches(msg, l.keys.Up, l.keys.Down, l.keys.PageUp, l.keys.PageDown)
}

// DoneLine says the lesson is done, in its language: "Lesson done: its
// title".
func (l Pane) DoneLine() string { return l.Labels().Done + ": " + l.lesson.Title }

// Offset is the first line of the text in view.
func (l Pane) Offset() int { return l.offset }

// ScrollTo puts line i of the text at the top, as far as the text goes.
func (l *Pane) ScrollTo(i int) {
	l.offset = i
	l.clamp()
}

// SetSize sizes the pane and renders its text at the new width.
func (l *Pane) SetSize(w, h int) {
	changed := w != l.w
	l.w, l.h = w, h
	if changed {
		l.Render()
	} else {
		l.clamp()
	}
}

// ShortHelp is the keys that scroll the lesson (none in scene mode).
func (l Pane) ShortHelp() []key.Binding {
	if l.lesson == nil {
		return nil
	}
	return []key.Binding{l.keys.Up, l.keys.Down}
}

// FullHelp is every key that scrolls the lesson.
func (l Pane) FullHelp() [][]key.Binding {
	if l.lesson == nil {
		return nil
	}
	return [][]key.Binding{{l.keys.Up, l.keys.Down, l.keys.PageUp, l.keys.PageDown}}
}

// Update scrolls the text (by key or by the mouse wheel), or in the quiz
// moves between the choices.
func (l Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	if w, ok := msg.(tea.MouseWheelMsg); ok && l.lesson != nil {
		switch w.Button {
		case tea.MouseWheelUp:
			l.offset -= 3
		case tea.MouseWheelDown:
			l.offset += 3
		}
		l.clamp()
		return l, nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || l.lesson == nil {
		return l, nil
	}
	if l.place == placeQuiz && !l.answered {
		n := len(l.lesson.Quiz[l.question].Choices)
		switch {
		case key.Matches(k, l.keys.Up):
			l.Choose((l.choice + n - 1) % n)
			return l, nil
		case key.Matches(k, l.keys.Down):
			l.Choose((l.choice + 1) % n)
			return l, nil
		}
	}
	page := max(1, l.BodyHeight()-1)
	switch {
	case key.Matches(k, l.keys.Up):
		l.offset--
	case key.Matches(k, l.keys.Down):
		l.offset++
	case key.Matches(k, l.keys.PageUp):
		l.offset -= page
	case key.Matches(k, l.keys.PageDown):
		l.offset += page
	}
	l.clamp()
	return l, nil
}

// SetLesson opens a lesson at its first step.
func (l *Pane) SetLesson(ls *lessons.Lesson, position string, next *lessons.Lesson) {
	l.lesson, l.position, l.next = ls, position, next
	l.right = 0
	l.StartStep(0)
	if ls.Intro != "" {
		l.intro = true
		l.Render()
	}
}

// CloseIntro turns the introduction's page: step 1 is on screen.
func (l *Pane) CloseIntro() {
	if l.intro {
		l.intro = false
		l.offset, l.follow = 0, false
		l.Render()
	}
}

// OnIntro says the lesson's introduction is the page on screen.
func (l Pane) OnIntro() bool {
	return l.intro && l.lesson != nil && l.place == placeStep && l.step == 0
}

// StartStep shows step i with its checks not yet evaluated.
func (l *Pane) StartStep(i int) {
	l.carried, l.carriedFrom, l.keyHint = nil, nil, ""
	l.step, l.place = i, placeStep
	l.intro = l.intro && i == 0 // r on step 1 keeps the page turned
	l.outcomes, l.checked, l.showHint, l.dead = nil, false, false, nil
	l.offset, l.follow = 0, false
	l.shown = lessons.PaneNone
	l.Render()
}

// Watch is the data pane shown with the lesson on a narrow screen: the
// one tab chose, else the one the step names, else the timeline.
func (l Pane) Watch() lessons.Pane {
	if l.shown != lessons.PaneNone {
		return l.shown
	}
	if p := l.NamedPane(); p != lessons.PaneNone {
		return p
	}
	return lessons.PaneTimeline
}

// NamedPane is the data pane the step on screen asks the learner to read:
// its watch: line, else the one its text points at (the Guarantees when it
// names them, the tables when it names their columns); none past the steps
// or when it names none.
func (l Pane) NamedPane() lessons.Pane {
	st := l.Current()
	switch {
	case st == nil || l.place > placePassed:
		return lessons.PaneNone
	case st.Watch != lessons.PaneNone:
		return st.Watch
	case l.NamesGuarantees():
		return lessons.PaneGuarantees
	case len(l.Named()) > 0:
		return lessons.PaneTables
	}
	return lessons.PaneNone
}

// NextWatch shows the next data pane (tab), in lessons.Panes' order.
func (l *Pane) NextWatch() {
	i := slices.Index(lessons.Panes, l.Watch())
	l.shown = lessons.Panes[(i+1)%len(lessons.Panes)]
}

// SetOutcomes records an evaluation of the step's checks; passed moves the
// step to its why.
func (l *Pane) SetOutcomes(out []lessons.Outcome, passed bool) {
	l.outcomes, l.checked = out, true
	if passed && l.place == placeStep {
		l.place = placePassed
		l.showHint = false
		l.follow = true
		l.Render()
	}
}

// ToggleHint shows or hides the hint. Shown, the text scrolls to its keys
// line, the first thing the hint adds: the written hint follows under it
// (scrolling to the end put the keys above the top of a short pane).
func (l *Pane) ToggleHint() {
	l.showHint = !l.showHint
	l.follow = false
	l.Render()
	if l.showHint {
		l.offset = l.keysLine()
		l.clamp()
	}
}

// keysLine is where the hint's keys line is in the scrolling text (its
// end when there is none).
func (l Pane) keysLine() int {
	lead := l.Labels().Keys + "."
	text := l.Content()
	for i, line := range text {
		if strings.Contains(ansi.Strip(line), lead) {
			return i
		}
	}
	return len(text)
}

// StartQuiz shows the quiz's first question.
func (l *Pane) StartQuiz() {
	l.place, l.question, l.choice, l.answered = placeQuiz, 0, 0, false
	l.offset, l.follow = 0, false
	l.Render()
}

// Choose selects choice i of the question on screen (a digit's).
func (l *Pane) Choose(i int) {
	if l.answered || i < 0 || i >= len(l.lesson.Quiz[l.question].Choices) {
		return
	}
	l.choice = i
	l.Render()
}

// Answer answers the question with the selected choice.
func (l *Pane) Answer() {
	if l.answered {
		return
	}
	l.answered = true
	if l.lesson.Quiz[l.question].Choices[l.choice].Right {
		l.right++
	}
	l.follow = true
	l.Render()
}

// NextQuestion moves on; it reports false after the last question.
func (l *Pane) NextQuestion() bool {
	if l.question+1 >= len(l.lesson.Quiz) {
		l.place = placeDone
		l.offset, l.follow = 0, false
		l.Render()
		return false
	}
	l.question, l.choice, l.answered = l.question+1, 0, false
	l.offset, l.follow = 0, false
	l.Render()
	return true
}

// SetActors follows the actors on screen: the hint's keys number them
// (drawn while a fresh simulation was still being built, they are drawn
// again now), and a step carried over reads their states.
func (l *Pane) SetActors(actors []sim.ActorView, set scenes.Settings) {
	if l.lesson == nil {
		return
	}
	if st := l.Current(); st != nil && l.showHint {
		if h := l.StepKeyHint(st, actors, set); h != l.keyHint {
			l.keyHint = h
			l.Render()
		}
	}
	l.RefreshCarried(actors)
}

// StepKeyHint is the keys line of a step's hint: its solution's keys, or
// X for a step whose task is a chaos run.
func (l Pane) StepKeyHint(st *lessons.Step, actors []sim.ActorView, set scenes.Settings) string {
	if st.Chaos > 0 {
		return "X " + l.st.Words.T("chaos run")
	}
	if l.hint == nil {
		return ""
	}
	return l.hint(st.Solution, actors, set)
}

// Named are the outbox columns the step on screen names (none outside a
// step): the tables pane draws them whole.
func (l Pane) Named() []string {
	if l.place > placePassed {
		return nil
	}
	return namedColumns(l.lesson, l.step)
}

// guaranteesNamed is how a step's text sends the learner to the Guarantees
// pane, in either language.
var guaranteesNamed = regexp.MustCompile(`\bGuarantees\b|\bGarantías\b`)

// NamesGuarantees says the step on screen (the lesson's introduction on
// its first step) points at the Guarantees pane.
func (l Pane) NamesGuarantees() bool {
	st := l.Current()
	if st == nil || l.place > placePassed {
		return false
	}
	text := st.Read + st.Task + st.Hint + st.Why
	if l.step == 0 {
		text += l.lesson.Intro
	}
	return guaranteesNamed.MatchString(text)
}

// restartsFrom is the step r goes back to from the step on screen: the
// latest that starts on a fresh simulator, as the lesson page's r does.
func (l Pane) restartsFrom() int {
	i := l.step
	for i > 0 && !l.lesson.Steps[i].Fresh {
		i--
	}
	return i
}

// Current is the step on screen.
func (l Pane) Current() *lessons.Step {
	if l.lesson == nil || l.step >= len(l.lesson.Steps) {
		return nil
	}
	return &l.lesson.Steps[l.step]
}

// Labels are the pane's words in the open lesson's language (English
// without one).
func (l Pane) Labels() Labels {
	if l.lesson == nil {
		return LabelsFor("en")
	}
	return LabelsFor(l.lesson.Lang)
}

// textWidth is the width the Markdown wraps to: the pane less a one-cell
// margin on the left.
func (l Pane) textWidth() int { return max(20, l.w-2) }

// markdown renders Markdown wrapped to the pane, as lines without the
// blank lines glamour puts around blocks at the very start and end.
func (l Pane) markdown(md string) []string {
	return l.markdownAt(md, l.textWidth())
}

// markdownAt renders Markdown wrapped to width (once per text, width and
// style: l.rendered).
func (l Pane) markdownAt(md string, width int) []string {
	return l.rendered.lines(markdownKey{&l.st.Markdown, width, md}, func() []string { return l.renderMarkdown(md, width) })
}

func (l Pane) renderMarkdown(md string, width int) []string {
	md = fitCode(md, width-l.codeOffset())
	md = keepCodeWhole(md)
	r, err := glamour.NewTermRenderer(glamour.WithStyles(l.st.Markdown), glamour.WithWordWrap(width))
	var out string
	if err == nil {
		out, err = r.Render(md)
	}
	if err != nil {
		out = lipgloss.Wrap(md, width, " ")
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	for i, line := range lines {
		lines[i] = unkeep.Replace(line)
	}
	return lines
}

// Inside a code span a space is a no-break space and a hyphen a no-break
// hyphen while glamour wraps, so a command (`outboxlab --lesson
// commit-order`) is never cut at a hyphen or between its words; unkeep
// gives the rendered lines their ordinary characters back. A span wider
// than the line is still cut by glamour, mid-word, as any word that long.
var (
	keep   = strings.NewReplacer(" ", "\u00a0", "-", "\u2011")
	unkeep = strings.NewReplacer("\u00a0", " ", "\u2011", "-")
)

// keepCodeWhole makes md's inline code spans unbreakable (keep). Code is
// found by goldmark, the parser glamour uses.
func keepCodeWhole(md string) string {
	src := []byte(md)
	type span struct{ start, stop int }
	var spans []span
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Kind() != ast.KindCodeSpan {
			return ast.WalkContinue, nil
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				spans = append(spans, span{t.Segment.Start, t.Segment.Stop})
			}
		}
		return ast.WalkSkipChildren, nil
	})
	for i := len(spans) - 1; i >= 0; i-- {
		sp := spans[i]
		md = md[:sp.start] + keep.Replace(md[sp.start:sp.stop]) + md[sp.stop:]
	}
	return md
}

// codeOffset is how far glamour's style moves a code block right.
func (l Pane) codeOffset() int {
	var n uint
	if cb := l.st.Markdown.CodeBlock; cb.Indent != nil {
		n += *cb.Indent
	}
	if cb := l.st.Markdown.CodeBlock; cb.Margin != nil {
		n += *cb.Margin
	}
	return int(n)
}

// fitCode wraps the lines of md's code blocks that are wider than width,
// each continuation four cells deeper than its line: deeper than the two
// cells SQL nests by, so it does not read as a line of its own. Glamour
// wraps a long code line back to column 0, which loses the indentation SQL
// is read by; a line that fits is left to glamour as it is. Code is found
// by goldmark, the parser glamour itself uses. Wrapping, not cutting with
// an ellipsis: the cut part (a claim's last condition) is the lesson.
func fitCode(md string, width int) string {
	src := []byte(md)
	type edit struct {
		start, stop int
		text        string
	}
	var edits []edit
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if n.Kind() != ast.KindCodeBlock && n.Kind() != ast.KindFencedCodeBlock {
			return ast.WalkContinue, nil
		}
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			if seg.Padding != 0 {
				continue // a tab: left to glamour
			}
			line := strings.TrimRight(string(src[seg.Start:seg.Stop]), "\r\n")
			if ansi.StringWidth(line) <= width {
				continue
			}
			// What the block's lines start with in the source (the
			// indentation of an indented block, a quote's "> "), then the
			// line's own indentation and four cells more.
			prefix := string(src[strings.LastIndexByte(md[:seg.Start], '\n')+1 : seg.Start])
			lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
			parts := wrapCode(line, width, len(lead)+4)
			edits = append(edits, edit{seg.Start, seg.Start + len(line),
				strings.Join(parts, "\n"+prefix+lead+"    ")})
		}
		return ast.WalkSkipChildren, nil
	})
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		md = md[:e.start] + e.text + md[e.stop:]
	}
	return md
}

// wrapCode cuts a code line into pieces: the first at most width cells,
// the others at most width-hang, for a hanging indent of hang cells. It
// breaks at the last space that fits (dropping the spaces there), or
// mid-word when a word alone is too long.
func wrapCode(line string, width, hang int) []string {
	var out []string
	limit := width
	body := line
	for ansi.StringWidth(body) > limit {
		if limit < 8 {
			break // too narrow to wrap usefully: glamour's own wrap decides
		}
		cut, lastSpace, w := 0, -1, 0
		indent := len(body) - len(strings.TrimLeft(body, " "))
		for i, r := range body {
			rw := ansi.StringWidth(string(r))
			if w+rw > limit {
				break
			}
			w += rw
			cut = i + len(string(r))
			if r == ' ' && i > indent {
				lastSpace = i
			}
		}
		if lastSpace > 0 {
			cut = lastSpace
		}
		out = append(out, strings.TrimRight(body[:cut], " "))
		body = strings.TrimLeft(body[cut:], " ")
		limit = width - hang
	}
	return append(out, body)
}

// quote draws Markdown text as a quote: wrapped two cells narrower than the
// pane, each line behind a bar.
func (l Pane) quote(md string) []string {
	lines := l.markdownAt(md, l.textWidth()-2)
	for i, line := range lines {
		lines[i] = "│ " + line
	}
	return lines
}

// Render renders the text for the current state: glamour runs here, on a
// change, never in View.
func (l *Pane) Render() {
	if l.lesson == nil || l.w <= 0 {
		l.body, l.task = nil, nil
		return
	}
	lb := l.Labels()
	var md strings.Builder
	var before []string // what is drawn above md: the step's text and its hint
	l.task = nil
	switch l.place {
	case placeStep, placePassed:
		st := l.lesson.Steps[l.step]
		if l.OnIntro() {
			fmt.Fprintf(&md, "# %s\n\n%s\n\n", l.lesson.Title, l.lesson.Intro)
			break
		}
		fmt.Fprintf(&md, "## %s %d/%d · %s\n\n%s\n\n", lb.Step, l.step+1, len(l.lesson.Steps), st.Title, st.Read)
		if l.showHint && l.keyHint != "" {
			// The keys first: the written hint may add words, never replace them.
			// A paragraph, not a quote: glamour drops a quote's bar on lines
			// that wrap around code spans.
			fmt.Fprintf(&md, "**%s.** %s\n\n", lb.Keys, l.keyHint)
		}
		if l.showHint {
			// However the step went, r is the way back to its start.
			if from := l.restartsFrom(); from != l.step {
				fmt.Fprintf(&md, lb.RestartFrom+"\n\n", from+1)
			} else {
				fmt.Fprintf(&md, "%s\n\n", lb.Restart)
			}
		}
		if l.showHint && st.Hint != "" {
			// The hint is a quote drawn here, not by glamour: glamour takes
			// one cell off a quote's width for a bar two cells wide, so a
			// line could end past the pane and its last word wrap to a line
			// of its own, without the bar.
			before = append(l.markdown(md.String()), "")
			before = append(before, l.quote(fmt.Sprintf("**%s.** %s", lb.Hint, st.Hint))...)
			before = append(before, "")
			md.Reset()
		}
		if l.place == placePassed && st.Why != "" {
			// The why replaces the step's text, read already: with the
			// checks folded into one line, the why and the step's heading
			// are read whole at 80×24.
			md.Reset()
			fmt.Fprintf(&md, "## %s %d/%d · %s\n\n**%s.** %s\n\n", lb.Step, l.step+1, len(l.lesson.Steps), st.Title, lb.Why, st.Why)
		}
		task := fmt.Sprintf("**%s.** %s", lb.Task, st.Task)
		for _, c := range l.carried {
			task += " " + c
		}
		l.task = l.markdown(task)
	case placeQuiz:
		title := l.lesson.QuizTitle
		if title == "" {
			title = lb.Quiz
		}
		q := l.lesson.Quiz[l.question]
		fmt.Fprintf(&md, "## %s\n\n**%s %d/%d.** %s\n\n", title, lb.Question, l.question+1, len(l.lesson.Quiz), q.Text)
	case placeDone:
		fmt.Fprintf(&md, "# %s ✓\n\n%s\n\n", lb.Done, fmt.Sprintf(lb.Right, l.right, len(l.lesson.Quiz)))
		if l.next != nil {
			fmt.Fprintf(&md, "%s\n\n", fmt.Sprintf(lb.Next, l.next.Title, l.next.Name))
		} else {
			fmt.Fprintf(&md, "%s\n\n", lb.Last)
		}
	}
	l.body = append(before, l.markdown(md.String())...)
	if l.place == placeQuiz {
		l.body = append(l.body, "")
		l.body = append(l.body, l.choices()...)
	}
	l.clamp()
}

// choices draws the question's choices: the selected one marked, and once
// answered, which is right and why each choice is right or wrong.
func (l Pane) choices() []string {
	st := l.st.Lesson
	q := l.lesson.Quiz[l.question]
	w := l.textWidth() - 5
	var out []string
	for i, c := range q.Choices {
		mark, look := "  ", st.Choice
		switch {
		case l.answered && c.Right:
			mark, look = "✓ ", st.Right
		case l.answered && i == l.choice:
			mark, look = "✗ ", st.Wrong
		case !l.answered && i == l.choice:
			mark, look = "▸ ", st.Selected
		}
		text := strings.Split(lipgloss.Wrap(screen.OneLine(c.Text), w, " "), "\n")
		for j, t := range text {
			prefix := "     "
			if j == 0 {
				prefix = mark + fmt.Sprintf("%d. ", i+1)
			}
			out = append(out, prefix+look.Render(t))
		}
		if l.answered && c.Because != "" {
			for _, t := range strings.Split(lipgloss.Wrap(screen.OneLine(c.Because), w, " "), "\n") {
				out = append(out, "     "+st.Because.Render(t))
			}
		}
	}
	return out
}

// Footer is what stays in view under the text: the task and the checks'
// live status during a step, a one-line status otherwise.
func (l Pane) Footer() []string {
	if l.lesson == nil {
		return nil
	}
	st := l.st.Lesson
	lb := l.Labels()
	switch {
	case l.OnIntro():
		// What turns the page, and what comes after it.
		return append([]string{""}, screen.WrapWhole(st.Status.Render("→ "+l.st.Words.T("enter begins step 1")), l.textWidth(), 2)...)
	case l.place == placePassed:
		// Every check holds: one line says so, and the why has the room.
		n := len(l.Current().Checks)
		return []string{"", st.Status.Render("✓ " + lb.Passed + " · " + l.st.Words.T("%d checks hold", n))}
	case l.place == placeStep:
		out := []string{""}
		out = append(out, l.task...)
		step := l.Current()
		for i, c := range step.Checks {
			mark, look, detail := "· ", st.Pending, lb.Checking
			if l.checked && i < len(l.outcomes) {
				o := l.outcomes[i]
				detail = o.Detail
				if o.OK {
					mark, look = "✓ ", st.Pass
				} else {
					mark, look = "✗ ", st.Fail
				}
			}
			// Wrapped, never cut: what a check found is read whole.
			out = append(out, screen.WrapWhole(look.Render(mark)+c.Text()+st.Detail.Render("  "+detail), l.textWidth(), 2)...)
		}
		return out
	}
	return nil
}

// DeadLines say the step cannot pass any more (none while it may): they
// stay at the pane's foot whether or not the footer scrolls.
func (l Pane) DeadLines() []string {
	if l.lesson == nil || l.place != placeStep || l.dead == nil {
		return nil
	}
	say := l.st.Words.T("this step cannot pass any more (%s): r starts it again", l.dead.Text())
	if from := l.restartsFrom(); from != l.step {
		say = l.st.Words.T("this step cannot pass any more (%s): r starts again from step %d", l.dead.Text(), from+1)
	}
	return screen.WrapWhole(l.st.Lesson.Fail.Render("✗ "+say), l.textWidth(), 2)
}

// minBody is the fewest lines of text the pane keeps in view above a
// pinned footer: with less, the footer scrolls with the text instead.
const minBody = 4

// Pinned says the footer stays at the bottom: it leaves the text room.
func (l Pane) Pinned() bool { return l.h-1-len(l.Footer())-len(l.DeadLines()) >= minBody }

// Content is the scrolling text: the body, and the footer too when it is
// not pinned (a long task and its checks on a short pane), so every line
// of both can be scrolled to.
func (l Pane) Content() []string {
	if l.Pinned() {
		return l.body
	}
	return append(append(slices.Clip(l.body), ""), l.Footer()...)
}

// BodyHeight is how many lines of the scrolling text fit.
func (l Pane) BodyHeight() int {
	if !l.Pinned() {
		return max(1, l.h-1-len(l.DeadLines()))
	}
	return max(1, l.h-1-len(l.Footer())-len(l.DeadLines()))
}

// clamp keeps the scroll offset inside the text (at its end when following).
func (l *Pane) clamp() {
	maxOff := max(0, len(l.Content())-l.BodyHeight())
	if l.follow {
		l.offset = maxOff
		l.follow = false
	}
	l.offset = min(max(0, l.offset), maxOff)
}

// View draws the lesson's title line, the text in view, then the footer
// (the checks) and what says the step cannot pass.
func (l Pane) View() string {
	if l.lesson == nil {
		return l.sceneView()
	}
	lb := l.Labels()
	detail := fmt.Sprintf("%s %s", l.position, l.lesson.Name)
	switch {
	case l.OnIntro():
		detail += " · " + lb.Intro
	case l.place <= placePassed:
		detail += fmt.Sprintf(" · %s %d/%d", strings.ToLower(lb.Step), l.step+1, len(l.lesson.Steps))
	case l.place == placeQuiz:
		detail += fmt.Sprintf(" · %s %d/%d", strings.ToLower(lb.Question), l.question+1, len(l.lesson.Quiz))
	case l.place == placeDone:
		detail += " · ✓"
	}
	text := l.Content()
	bh := l.BodyHeight()
	off := min(max(0, l.offset), max(0, len(text)-bh))
	end := min(len(text), off+bh)
	if off > 0 || end < len(text) {
		// Say there is more, in the title: on the text's last line it
		// would cover the end of that line.
		detail += " · " + fmt.Sprintf("↕ %d%%", 100*end/max(1, len(text)))
	}
	lines := []string{screen.PaneTitle(l.st, l.focused, l.st.Words.T("Lesson"), detail, l.w)}
	for i := off; i < end; i++ {
		lines = append(lines, " "+text[i])
	}
	// The footer follows the text, or stays at the bottom when the text
	// scrolls (when it leaves the text room: else it scrolls with it).
	if l.Pinned() {
		for _, f := range l.Footer() {
			lines = append(lines, " "+f)
		}
	}
	for _, f := range l.DeadLines() {
		lines = append(lines, " "+f)
	}
	return screen.Block(strings.Join(lines, "\n"), l.w, l.h)
}

// sceneView is the pane without a lesson: what the scene teaches, and which
// server runs it.
func (l Pane) sceneView() string {
	lines := []string{screen.PaneTitle(l.st, false, l.st.Words.T("Scene"), l.st.Words.T("what it teaches"), l.w)}
	if l.scene != nil {
		lang := l.st.Words.Lang()
		for _, t := range screen.WrapWhole(l.scene.TitleIn(lang), max(10, l.w-2), 0) {
			lines = append(lines, " "+l.st.Figures.Heading.Render(t))
		}
		text := strings.Join(strings.Fields(l.scene.TeachesIn(lang)), " ")
		for _, s := range strings.Split(lipgloss.Wrap(text, max(10, l.w-2), " "), "\n") {
			lines = append(lines, " "+s)
		}
	}
	for _, f := range l.facts {
		if f.Name == "version" || f.Name == "listening" {
			lines = append(lines, " "+l.st.App.Muted.Render(f.Name+": "+f.Value))
		}
	}
	for _, p := range l.psql {
		lines = append(lines, " "+l.st.App.Muted.Render(p))
	}
	return screen.Block(strings.Join(lines, "\n"), l.w, l.h)
}
