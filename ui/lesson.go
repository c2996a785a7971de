package ui

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/screen"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/scenes"
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

// labels are the few words the lesson pane writes itself, in the lesson's
// language (the keys' help stays English, like the rest of the TUI).
type labels struct {
	Step, Task, Hint, Keys, Why, Quiz, Question, Passed, Done, Right, Next, Last, Checking, Intro string
	// Crashed and Stalled say an actor begins the step as the step before
	// left it (%s: its name), and the key that moves it.
	Crashed, Stalled string
	// Restart says r starts the step again, with every hint; RestartFrom
	// says where r goes back to when the step builds on an earlier one.
	Restart, RestartFrom string
}

var paneLabels = map[string]labels{
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

// carryOver notes the actors a step that continues the previous one's
// simulator begins with crashed or stalled.
func (l *lessonPane) carryOver(actors []sim.ActorView) {
	l.carriedFrom = nil
	for _, a := range actors {
		if (a.State == sim.Crashed || a.State == sim.Stalled) && !slices.Contains(l.carriedFrom, a.Name) {
			l.carriedFrom = append(l.carriedFrom, a.Name)
		}
	}
	l.refreshCarried(actors)
}

// refreshCarried says which of the actors the step began with crashed or
// stalled still are: once restarted or resumed, the note goes.
func (l *lessonPane) refreshCarried(actors []sim.ActorView) {
	lb := l.lang()
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
		l.render()
	}
}

func labelsFor(lang string) labels {
	if l, ok := paneLabels[lang]; ok {
		return l
	}
	return paneLabels["en"]
}

// lessonKeys are the lesson pane's own keys: they scroll its text, or move
// between a question's choices.
type lessonKeys struct {
	Up, Down, PageUp, PageDown key.Binding
}

func defaultLessonKeys(w *catalog.Printer) lessonKeys {
	return lessonKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", w.T("scroll up"))),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", w.T("scroll down"))),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", w.T("page up"))),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", w.T("page down"))),
	}
}

// lessonPane shows the guided lesson: its introduction, the current step
// (what to read, the task, the live status of each check, the hint on
// request, the why once it passes), then the quiz. Without a lesson it
// shows what the scene teaches. The root owns the lesson's progress; this
// pane only draws it and scrolls.
type lessonPane struct {
	st      *Styles
	w, h    int
	focused bool
	keys    lessonKeys

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
	// keyHint is the step's solution as key presses (keyPath), shown with
	// the hint.
	keyHint string
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

func newLessonPane(st *Styles, sc *scenes.Scene) lessonPane {
	return lessonPane{st: st, scene: sc, keys: defaultLessonKeys(st.Words), rendered: newMemo[markdownKey](markdownMemoSize)}
}

// SetSize sizes the pane and renders its text at the new width.
func (l *lessonPane) SetSize(w, h int) {
	changed := w != l.w
	l.w, l.h = w, h
	if changed {
		l.render()
	} else {
		l.clamp()
	}
}

func (l lessonPane) ShortHelp() []key.Binding {
	if l.lesson == nil {
		return nil
	}
	return []key.Binding{l.keys.Up, l.keys.Down}
}

func (l lessonPane) FullHelp() [][]key.Binding {
	if l.lesson == nil {
		return nil
	}
	return [][]key.Binding{{l.keys.Up, l.keys.Down, l.keys.PageUp, l.keys.PageDown}}
}

// Update scrolls the text (by key or by the mouse wheel), or in the quiz
// moves between the choices.
func (l lessonPane) Update(msg tea.Msg) (lessonPane, tea.Cmd) {
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
			l.choose((l.choice + n - 1) % n)
			return l, nil
		case key.Matches(k, l.keys.Down):
			l.choose((l.choice + 1) % n)
			return l, nil
		}
	}
	page := max(1, l.bodyHeight()-1)
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

// setLesson opens a lesson at its first step.
func (l *lessonPane) setLesson(ls *lessons.Lesson, position string, next *lessons.Lesson) {
	l.lesson, l.position, l.next = ls, position, next
	l.right = 0
	l.startStep(0)
	if ls.Intro != "" {
		l.intro = true
		l.render()
	}
}

// closeIntro turns the introduction's page: step 1 is on screen.
func (l *lessonPane) closeIntro() {
	if l.intro {
		l.intro = false
		l.offset, l.follow = 0, false
		l.render()
	}
}

// onIntro says the lesson's introduction is the page on screen.
func (l lessonPane) onIntro() bool {
	return l.intro && l.lesson != nil && l.place == placeStep && l.step == 0
}

// startStep shows step i with its checks not yet evaluated.
func (l *lessonPane) startStep(i int) {
	l.carried, l.carriedFrom, l.keyHint = nil, nil, ""
	l.step, l.place = i, placeStep
	l.intro = l.intro && i == 0 // r on step 1 keeps the page turned
	l.outcomes, l.checked, l.showHint, l.dead = nil, false, false, nil
	l.offset, l.follow = 0, false
	l.shown = lessons.PaneNone
	l.render()
}

// watch is the data pane shown with the lesson on a narrow screen: the
// one tab chose, else the one the step names, else the timeline.
func (l lessonPane) watch() lessons.Pane {
	if l.shown != lessons.PaneNone {
		return l.shown
	}
	if p := l.namedPane(); p != lessons.PaneNone {
		return p
	}
	return lessons.PaneTimeline
}

// namedPane is the data pane the step on screen asks the learner to read:
// its watch: line, else the one its text points at (the Guarantees when it
// names them, the tables when it names their columns); none past the steps
// or when it names none.
func (l lessonPane) namedPane() lessons.Pane {
	st := l.current()
	switch {
	case st == nil || l.place > placePassed:
		return lessons.PaneNone
	case st.Watch != lessons.PaneNone:
		return st.Watch
	case l.namesGuarantees():
		return lessons.PaneGuarantees
	case len(l.named()) > 0:
		return lessons.PaneTables
	}
	return lessons.PaneNone
}

// nextWatch shows the next data pane (tab), in lessons.Panes' order.
func (l *lessonPane) nextWatch() {
	i := slices.Index(lessons.Panes, l.watch())
	l.shown = lessons.Panes[(i+1)%len(lessons.Panes)]
}

// setOutcomes records an evaluation of the step's checks; passed moves the
// step to its why.
func (l *lessonPane) setOutcomes(out []lessons.Outcome, passed bool) {
	l.outcomes, l.checked = out, true
	if passed && l.place == placeStep {
		l.place = placePassed
		l.showHint = false
		l.follow = true
		l.render()
	}
}

// toggleHint shows or hides the hint. Shown, the text scrolls to its keys
// line, the first thing the hint adds: the written hint follows under it
// (scrolling to the end put the keys above the top of a short pane).
func (l *lessonPane) toggleHint() {
	l.showHint = !l.showHint
	l.follow = false
	l.render()
	if l.showHint {
		l.offset = l.keysLine()
		l.clamp()
	}
}

// keysLine is where the hint's keys line is in the scrolling text (its
// end when there is none).
func (l lessonPane) keysLine() int {
	lead := l.lang().Keys + "."
	text := l.content()
	for i, line := range text {
		if strings.Contains(ansi.Strip(line), lead) {
			return i
		}
	}
	return len(text)
}

func (l *lessonPane) startQuiz() {
	l.place, l.question, l.choice, l.answered = placeQuiz, 0, 0, false
	l.offset, l.follow = 0, false
	l.render()
}

func (l *lessonPane) choose(i int) {
	if l.answered || i < 0 || i >= len(l.lesson.Quiz[l.question].Choices) {
		return
	}
	l.choice = i
	l.render()
}

// answer answers the question with the selected choice.
func (l *lessonPane) answer() {
	if l.answered {
		return
	}
	l.answered = true
	if l.lesson.Quiz[l.question].Choices[l.choice].Right {
		l.right++
	}
	l.follow = true
	l.render()
}

// nextQuestion moves on; it reports false after the last question.
func (l *lessonPane) nextQuestion() bool {
	if l.question+1 >= len(l.lesson.Quiz) {
		l.place = placeDone
		l.offset, l.follow = 0, false
		l.render()
		return false
	}
	l.question, l.choice, l.answered = l.question+1, 0, false
	l.offset, l.follow = 0, false
	l.render()
	return true
}

// setActors follows the actors on screen: the hint's keys number them
// (drawn while a fresh simulation was still being built, they are drawn
// again now), and a step carried over reads their states.
func (l *lessonPane) setActors(actors []sim.ActorView, set scenes.Settings) {
	if l.lesson == nil {
		return
	}
	if st := l.current(); st != nil && l.showHint {
		if h := l.stepKeyHint(st, actors, set); h != l.keyHint {
			l.keyHint = h
			l.render()
		}
	}
	l.refreshCarried(actors)
}

// stepKeyHint is the keys line of a step's hint: its solution's keys, or
// X for a step whose task is a chaos run.
func (l lessonPane) stepKeyHint(st *lessons.Step, actors []sim.ActorView, set scenes.Settings) string {
	if st.Chaos > 0 {
		return "X " + l.st.Words.T("chaos run")
	}
	return keyHint(l.st.Words, st.Solution, actors, set)
}

// named are the outbox columns the step on screen names (none outside a
// step): the tables pane draws them whole.
func (l lessonPane) named() []string {
	if l.place > placePassed {
		return nil
	}
	return namedColumns(l.lesson, l.step)
}

// guaranteesNamed is how a step's text sends the learner to the Guarantees
// pane, in either language.
var guaranteesNamed = regexp.MustCompile(`\bGuarantees\b|\bGarantías\b`)

// namesGuarantees says the step on screen (the lesson's introduction on
// its first step) points at the Guarantees pane.
func (l lessonPane) namesGuarantees() bool {
	st := l.current()
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
// latest that starts on a fresh simulator (lessonPage.restartStep).
func (l lessonPane) restartsFrom() int {
	i := l.step
	for i > 0 && !l.lesson.Steps[i].Fresh {
		i--
	}
	return i
}

// current is the step on screen.
func (l lessonPane) current() *lessons.Step {
	if l.lesson == nil || l.step >= len(l.lesson.Steps) {
		return nil
	}
	return &l.lesson.Steps[l.step]
}

func (l lessonPane) lang() labels {
	if l.lesson == nil {
		return labelsFor("en")
	}
	return labelsFor(l.lesson.Lang)
}

// textWidth is the width the Markdown wraps to: the pane less a one-cell
// margin on the left.
func (l lessonPane) textWidth() int { return max(20, l.w-2) }

// markdown renders Markdown wrapped to the pane, as lines without the
// blank lines glamour puts around blocks at the very start and end.
func (l lessonPane) markdown(md string) []string {
	return l.markdownAt(md, l.textWidth())
}

// markdownAt renders Markdown wrapped to width (once per text, width and
// style: l.rendered).
func (l lessonPane) markdownAt(md string, width int) []string {
	return l.rendered.lines(markdownKey{&l.st.Markdown, width, md}, func() []string { return l.renderMarkdown(md, width) })
}

func (l lessonPane) renderMarkdown(md string, width int) []string {
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
func (l lessonPane) codeOffset() int {
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
func (l lessonPane) quote(md string) []string {
	lines := l.markdownAt(md, l.textWidth()-2)
	for i, line := range lines {
		lines[i] = "│ " + line
	}
	return lines
}

// render renders the text for the current state: glamour runs here, on a
// change, never in View.
func (l *lessonPane) render() {
	if l.lesson == nil || l.w <= 0 {
		l.body, l.task = nil, nil
		return
	}
	lb := l.lang()
	var md strings.Builder
	var before []string // what is drawn above md: the step's text and its hint
	l.task = nil
	switch l.place {
	case placeStep, placePassed:
		st := l.lesson.Steps[l.step]
		if l.onIntro() {
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
func (l lessonPane) choices() []string {
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

// footer is what stays in view under the text: the task and the checks'
// live status during a step, a one-line status otherwise.
func (l lessonPane) footer() []string {
	if l.lesson == nil {
		return nil
	}
	st := l.st.Lesson
	lb := l.lang()
	switch {
	case l.onIntro():
		// What turns the page, and what comes after it.
		return append([]string{""}, screen.WrapWhole(st.Status.Render("→ "+l.st.Words.T("enter begins step 1")), l.textWidth(), 2)...)
	case l.place == placePassed:
		// Every check holds: one line says so, and the why has the room.
		n := len(l.current().Checks)
		return []string{"", st.Status.Render("✓ " + lb.Passed + " · " + l.st.Words.T("%d checks hold", n))}
	case l.place == placeStep:
		out := []string{""}
		out = append(out, l.task...)
		step := l.current()
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

// deadLines say the step cannot pass any more (none while it may): they
// stay at the pane's foot whether or not the footer scrolls.
func (l lessonPane) deadLines() []string {
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

// pinned says the footer stays at the bottom: it leaves the text room.
func (l lessonPane) pinned() bool { return l.h-1-len(l.footer())-len(l.deadLines()) >= minBody }

// content is the scrolling text: the body, and the footer too when it is
// not pinned (a long task and its checks on a short pane), so every line
// of both can be scrolled to.
func (l lessonPane) content() []string {
	if l.pinned() {
		return l.body
	}
	return append(append(slices.Clip(l.body), ""), l.footer()...)
}

// bodyHeight is how many lines of the scrolling text fit.
func (l lessonPane) bodyHeight() int {
	if !l.pinned() {
		return max(1, l.h-1-len(l.deadLines()))
	}
	return max(1, l.h-1-len(l.footer())-len(l.deadLines()))
}

// clamp keeps the scroll offset inside the text (at its end when following).
func (l *lessonPane) clamp() {
	maxOff := max(0, len(l.content())-l.bodyHeight())
	if l.follow {
		l.offset = maxOff
		l.follow = false
	}
	l.offset = min(max(0, l.offset), maxOff)
}

func (l lessonPane) View() string {
	if l.lesson == nil {
		return l.sceneView()
	}
	lb := l.lang()
	detail := fmt.Sprintf("%s %s", l.position, l.lesson.Name)
	switch {
	case l.onIntro():
		detail += " · " + lb.Intro
	case l.place <= placePassed:
		detail += fmt.Sprintf(" · %s %d/%d", strings.ToLower(lb.Step), l.step+1, len(l.lesson.Steps))
	case l.place == placeQuiz:
		detail += fmt.Sprintf(" · %s %d/%d", strings.ToLower(lb.Question), l.question+1, len(l.lesson.Quiz))
	case l.place == placeDone:
		detail += " · ✓"
	}
	text := l.content()
	bh := l.bodyHeight()
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
	if l.pinned() {
		for _, f := range l.footer() {
			lines = append(lines, " "+f)
		}
	}
	for _, f := range l.deadLines() {
		lines = append(lines, " "+f)
	}
	return screen.Block(strings.Join(lines, "\n"), l.w, l.h)
}

// sceneView is the pane without a lesson: what the scene teaches, and which
// server runs it.
func (l lessonPane) sceneView() string {
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
