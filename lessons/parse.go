package lessons

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/outboxlab/outboxlab/scenes"
)

// Error is a lesson file problem: where and why.
type Error struct {
	File   string
	Line   int
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

// headers are the keys of the front matter.
var headers = []string{"title", "summary", "teaches", "order", "scene", "variant", "mode"}

// directives are the keys that give a lesson body its structure; a line
// starting with one of them (then a colon) is never reading text.
var directives = []string{"step", "variant", "task", "check", "hint", "why", "solution", "chaos", "watch", "quiz", "question", "answer", "option", "because"}

var builtinScenes = sync.OnceValues(scenes.Builtin)

// directive splits "key: value" when key is a directive.
func directive(line string) (key, val string, ok bool) {
	k, v, found := strings.Cut(line, ":")
	if !found || !slices.Contains(directives, k) {
		return "", "", false
	}
	if v != "" && v[0] != ' ' && v[0] != '\t' {
		return "", "", false
	}
	return k, strings.TrimSpace(v), true
}

type pending struct {
	line int
	text string
}

// stepDraft gathers a step's lines; checks and solutions are read when the
// step ends, once its settings are known.
type stepDraft struct {
	Step
	read      []string
	checks    []pending
	solutions []pending
	variantAt int
	directed  bool // a directive has been seen: no more reading text
}

type parser struct {
	l     *Lesson
	scene *scenes.Scene
	mode  scenes.Mode
	n     int
	fail  func(line int, format string, args ...any) error

	intro []string
	step  *stepDraft
	quiz  bool
	cont  *string // the directive value a continuation line extends
}

// Parse reads one lesson file. name is what `--lesson NAME` calls it, file
// is used in messages, lang is the language it is written in.
func Parse(name, file, lang string, r io.Reader) (*Lesson, error) {
	all, err := builtinScenes()
	if err != nil {
		return nil, fmt.Errorf("lessons need the built-in scenes: %w", err)
	}
	p := &parser{l: &Lesson{Name: name, File: file, Lang: lang}}
	p.fail = func(line int, format string, args ...any) error {
		return &Error{File: file, Line: line, Reason: fmt.Sprintf(format, args...)}
	}
	in := bufio.NewScanner(r)
	if err := p.frontMatter(in, all); err != nil {
		return nil, err
	}
	for in.Scan() {
		p.n++
		if err := p.line(in.Text()); err != nil {
			return nil, err
		}
	}
	if err := in.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if err := p.endStep(); err != nil {
		return nil, err
	}
	return p.l, p.finish()
}

func (p *parser) frontMatter(in *bufio.Scanner, all []*scenes.Scene) error {
	l := p.l
	started := false
	seen := map[string]bool{}
	for in.Scan() {
		p.n++
		line := strings.TrimSpace(in.Text())
		if !started {
			if line == "" {
				continue
			}
			if line != "---" {
				return p.fail(p.n, "a lesson starts with front matter: a --- line, title:, summary:, teaches:, order:, scene: ..., and --- again")
			}
			started = true
			continue
		}
		if line == "---" {
			return p.headersDone(all)
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		if !ok || !slices.Contains(headers, key) {
			return p.fail(p.n, "unknown front matter line %q (known keys: %s)", line, strings.Join(headers, ", "))
		}
		if seen[key] {
			return p.fail(p.n, "%s: given twice", key)
		}
		seen[key] = true
		if val == "" {
			return p.fail(p.n, "%s: is empty", key)
		}
		switch key {
		case "title":
			l.Title = val
		case "summary":
			l.Summary = val
		case "teaches":
			l.Teaches = val
		case "order":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return p.fail(p.n, "order: %q is not a positive whole number", val)
			}
			l.Order = n
		case "scene":
			sc, err := scenes.Find(all, val)
			if err != nil {
				return p.fail(p.n, "scene: %v", err)
			}
			l.Scene, p.scene = val, sc
		case "variant":
			l.Variant = val
		case "mode":
			m, err := scenes.ParseMode(val)
			if err != nil || m == "" {
				return p.fail(p.n, "mode: %q is not one of naive, outbox, compare", val)
			}
			p.mode = m
		}
	}
	return p.fail(p.n, "the front matter never ends: close it with a --- line")
}

func (p *parser) headersDone(all []*scenes.Scene) error {
	l := p.l
	var missing []string
	for _, h := range []struct {
		key string
		set bool
	}{{"title", l.Title != ""}, {"summary", l.Summary != ""}, {"teaches", l.Teaches != ""}, {"order", l.Order != 0}, {"scene", l.Scene != ""}} {
		if !h.set {
			missing = append(missing, h.key+":")
		}
	}
	if len(missing) > 0 {
		return p.fail(p.n, "front matter lacks %s", strings.Join(missing, " "))
	}
	set, err := p.settings(l.Variant)
	if err != nil {
		return p.fail(p.n, "variant: %v", err)
	}
	l.Settings = set
	return nil
}

// settings are the scene's settings under a variant ("" or "none": as
// written), with the lesson's mode override.
func (p *parser) settings(variant string) (scenes.Settings, error) {
	set := p.scene.Settings
	if variant != "" && variant != "none" {
		v, ok := p.scene.Variants[variant]
		if !ok {
			names := []string{"none"}
			for name := range p.scene.Variants {
				names = append(names, name)
			}
			slices.Sort(names[1:])
			return set, fmt.Errorf("scene %s has no variant %q (known: %s)", p.scene.Name, variant, strings.Join(names, ", "))
		}
		set = v
	}
	if p.mode != "" {
		set.Mode = p.mode
	}
	return set, nil
}

func (p *parser) line(raw string) error {
	line := strings.TrimSpace(raw)
	if line == "" {
		p.cont = nil
		p.text("")
		return nil
	}
	if key, val, ok := directive(line); ok {
		p.cont = nil
		return p.directive(key, val)
	}
	if p.cont != nil && (raw[0] == ' ' || raw[0] == '\t') {
		*p.cont += " " + line
		return nil
	}
	switch {
	case p.quiz:
		return p.fail(p.n, "text in the quiz: write question:, answer:, option: and because: lines (indent a line to continue the one above)")
	case p.step != nil && p.step.directed:
		return p.fail(p.n, "reading text after the step's task:, check: or other lines: put it between step: and task: (indent a line to continue the one above)")
	}
	p.text(raw)
	return nil
}

func (p *parser) text(raw string) {
	switch {
	case p.quiz:
	case p.step != nil:
		if !p.step.directed {
			p.step.read = append(p.step.read, raw)
		}
	default:
		p.intro = append(p.intro, raw)
	}
}

func (p *parser) directive(key, val string) error {
	if key != "step" && key != "quiz" && val == "" {
		return p.fail(p.n, "%s: is empty", key)
	}
	switch key {
	case "step":
		if p.quiz {
			return p.fail(p.n, "step: after quiz: the quiz comes last")
		}
		if val == "" {
			return p.fail(p.n, "step: needs a title")
		}
		if err := p.endStep(); err != nil {
			return err
		}
		p.step = &stepDraft{Step: Step{Line: p.n, Title: val}}
		return nil
	case "quiz":
		if p.quiz {
			return p.fail(p.n, "a second quiz:")
		}
		if err := p.endStep(); err != nil {
			return err
		}
		p.quiz, p.l.QuizTitle = true, val
		return nil
	case "question", "answer", "option", "because":
		return p.quizLine(key, val)
	}
	st := p.step
	if st == nil || p.quiz {
		return p.fail(p.n, "%s: outside a step (a step begins with step: TITLE)", key)
	}
	st.directed = true
	once := func(field *string) error {
		if *field != "" {
			return p.fail(p.n, "%s: given twice in one step", key)
		}
		*field = val
		p.cont = field
		return nil
	}
	switch key {
	case "variant":
		st.variantAt = p.n
		return once(&st.Variant)
	case "task":
		return once(&st.Task)
	case "hint":
		return once(&st.Hint)
	case "why":
		return once(&st.Why)
	case "check":
		st.checks = append(st.checks, pending{p.n, val})
		p.cont = &st.checks[len(st.checks)-1].text
	case "solution":
		st.solutions = append(st.solutions, pending{p.n, val})
		p.cont = &st.solutions[len(st.solutions)-1].text
	case "chaos":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > 10000 || st.Chaos != 0 {
			return p.fail(p.n, "chaos: want the number of schedules to run, 1 to 10000, once in a step")
		}
		st.Chaos = n
		p.cont = nil // no continuation lines: an indented line after it is an error, not the task's
	case "watch":
		if st.Watch != PaneNone {
			return p.fail(p.n, "watch: given twice in one step")
		}
		pane, err := ParsePane(val)
		if err != nil {
			return p.fail(p.n, "watch: %v", err)
		}
		st.Watch = pane
		p.cont = nil
	}
	return nil
}

func (p *parser) quizLine(key, val string) error {
	if !p.quiz {
		return p.fail(p.n, "%s: before quiz: (the quiz comes after the last step)", key)
	}
	qs := &p.l.Quiz
	if key == "question" {
		*qs = append(*qs, Question{Line: p.n, Text: val})
		p.cont = &(*qs)[len(*qs)-1].Text
		return nil
	}
	if len(*qs) == 0 {
		return p.fail(p.n, "%s: before the first question:", key)
	}
	q := &(*qs)[len(*qs)-1]
	if key == "because" {
		if len(q.Choices) == 0 {
			return p.fail(p.n, "because: before any answer: or option:")
		}
		c := &q.Choices[len(q.Choices)-1]
		if c.Because != "" {
			return p.fail(p.n, "because: given twice for one choice")
		}
		c.Because = val
		p.cont = &c.Because
		return nil
	}
	if len(q.Choices) > 0 && q.Choices[len(q.Choices)-1].Because == "" {
		return p.fail(p.n, "the choice above has no because: line (every answer is explained)")
	}
	q.Choices = append(q.Choices, Choice{Line: p.n, Text: val, Right: key == "answer"})
	p.cont = &q.Choices[len(q.Choices)-1].Text
	return nil
}

// endStep checks the step being read and adds it to the lesson.
func (p *parser) endStep() error {
	d := p.step
	if d == nil {
		return nil
	}
	p.step = nil
	st := d.Step
	st.Read = joinText(d.read)
	fail := func(format string, args ...any) error {
		return p.fail(d.Line, "step %q: "+format, append([]any{st.Title}, args...)...)
	}
	switch {
	case st.Read == "":
		return fail("nothing to read: write the step's text between step: and task:")
	case st.Task == "":
		return fail("no task: line (what the learner does)")
	case len(d.checks) == 0:
		return fail("no check: line (how the simulator's state shows the task is done)")
	case st.Hint == "":
		return fail("no hint: line")
	case st.Why == "":
		return fail("no why: line (shown once the checks pass)")
	case len(d.solutions) == 0:
		return fail("no solution: line (the scene commands that perform the task)")
	}
	first := len(p.l.Steps) == 0
	switch {
	case st.Variant != "":
		set, err := p.settings(st.Variant)
		if err != nil {
			return p.fail(d.variantAt, "variant: %v", err)
		}
		st.Settings, st.Fresh = set, true
	case first:
		st.Settings, st.Fresh = p.l.Settings, true
	default:
		st.Settings = p.l.Steps[len(p.l.Steps)-1].Settings
	}
	e := envOf(st.Settings)
	for _, pc := range d.checks {
		c, err := parseCheck(pc.text, e)
		if err != nil {
			return p.fail(pc.line, "%v", err)
		}
		c.Line, c.Lang = pc.line, p.l.Lang
		st.Checks = append(st.Checks, c)
	}
	for _, c := range st.Checks {
		if (c.Kind == "chaos") != (st.Chaos > 0) {
			return p.fail(c.Line, "a chaos: check belongs in a step with a chaos: N line, and such a step checks only the run's table")
		}
	}
	for _, ps := range d.solutions {
		if st.Chaos > 0 {
			if ps.text != "chaos" || len(d.solutions) > 1 {
				return p.fail(ps.line, "solution: a chaos step's solution is the run: write solution: chaos")
			}
			continue
		}
		cmds, err := parseSolution(ps.text, st.Settings, e)
		if err != nil {
			return p.fail(ps.line, "solution: %v", err)
		}
		for i := range cmds {
			cmds[i].Line = ps.line
		}
		st.Solution = append(st.Solution, cmds...)
	}
	p.l.Steps = append(p.l.Steps, st)
	return nil
}

// finish checks the lesson as a whole.
func (p *parser) finish() error {
	l := p.l
	l.Intro = joinText(p.intro)
	switch {
	case l.Intro == "":
		return p.fail(p.n, "no introduction: write it between the front matter and the first step:")
	case len(l.Steps) == 0:
		return p.fail(p.n, "no step: a lesson needs at least one")
	case !p.quiz:
		return p.fail(p.n, "no quiz: a lesson ends with quiz: and two or three questions")
	case len(l.Quiz) < 2 || len(l.Quiz) > 3:
		return p.fail(p.n, "the quiz has %d questions: want two or three", len(l.Quiz))
	}
	for _, q := range l.Quiz {
		right := 0
		for _, c := range q.Choices {
			if c.Right {
				right++
			}
			if c.Because == "" {
				return p.fail(c.Line, "this choice has no because: line (every answer is explained)")
			}
		}
		if len(q.Choices) < 2 {
			return p.fail(q.Line, "question with %d choices: want at least two", len(q.Choices))
		}
		if right != 1 {
			return p.fail(q.Line, "question with %d answer: lines: want exactly one right answer (the others are option:)", right)
		}
	}
	return nil
}

// joinText trims blank lines at both ends.
func joinText(lines []string) string {
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// parseSolution reads "cmd; cmd; ..." with the scenes parser (so a
// solution accepts exactly what a scene does) and checks that every actor
// it names runs under the step's settings: sim would skip a missing one
// silently.
func parseSolution(text string, set scenes.Settings, e env) ([]scenes.Step, error) {
	var cmds []string
	for _, c := range strings.Split(text, ";") {
		if c = strings.TrimSpace(c); c != "" {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("no command")
	}
	for _, c := range cmds {
		if strings.Contains(c, "#") || strings.HasSuffix(strings.Fields(c)[0], ":") {
			return nil, fmt.Errorf("%q is not a scene command", c)
		}
	}
	// A scene around the commands: three header lines, the commands, and an
	// expectation the parser requires.
	const head = 3
	src := fmt.Sprintf("title: solution\nteaches: solution\nmode: %s\n%s\nexpect %s payments >= 0\n",
		set.Mode, strings.Join(cmds, "\n"), set.Pipelines()[0])
	sc, err := scenes.Parse("solution", "solution", strings.NewReader(src))
	if err != nil {
		var se *scenes.Error
		if errors.As(err, &se) && se.Line > head && se.Line <= head+len(cmds) {
			return nil, fmt.Errorf("%q: %s", cmds[se.Line-head-1], se.Reason)
		}
		return nil, err
	}
	for _, st := range sc.Steps {
		if st.TakesActor() && !slices.Contains(e.actors, st.Args[0]) {
			return nil, fmt.Errorf("%q: no actor %s here (actors: %s)", st.String(), st.Args[0], strings.Join(e.actors[:len(e.actors)-1], ", "))
		}
	}
	return sc.Steps, nil
}
