package lessons

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

//go:embed en/*.md es/*.md
var builtinFS embed.FS

// Langs are the languages every lesson is written in.
var Langs = []string{"en", "es"}

// Ext is the lesson file extension.
const Ext = ".md"

// Lesson is one guided lesson: an introduction, steps the learner performs
// on a live simulator, and a short quiz.
type Lesson struct {
	Name    string // file name without extension: `outboxlab --lesson NAME`
	File    string // where it came from, for messages
	Lang    string // en | es
	Order   int    // position in the course
	Title   string
	Summary string // one line, for `outboxlab lessons`
	Teaches string // the design items, e.g. "S13"

	Scene    string          // the built-in scene whose settings the lesson runs on (never its script)
	Variant  string          // "" or one of the scene's variants
	Settings scenes.Settings // what the first step's simulator runs with

	Intro     string // Markdown
	Steps     []Step
	QuizTitle string // "" lets the UI pick a heading
	Quiz      []Question
}

// Step is one thing the learner reads, then does; checks say when it is done.
type Step struct {
	Line  int
	Title string
	Read  string // Markdown
	Task  string // Markdown, one paragraph
	Hint  string // Markdown, shown on request
	Why   string // Markdown, shown once every check passes

	Checks []Check

	// Variant is the step's "variant:" line, if any: the step then starts on
	// a fresh simulator running that variant of the scene ("none": the scene
	// as written). Fresh is true for the first step too: the UI builds a new
	// simulator for its Settings when it enters a Fresh step and keeps the
	// previous one otherwise.
	Variant  string
	Fresh    bool
	Settings scenes.Settings

	// Solution performs the task: scene commands sent with sim.Do, exactly
	// what the TUI sends. The tests solve every lesson with it; autoplay
	// (`outboxlab play LESSON`) can too.
	Solution []scenes.Step

	// Chaos, from a "chaos: N" line, makes the step's task a chaos run: N
	// random fault schedules of the step's mode, each on databases of its
	// own (package chaos). Its solution is "solution: chaos" (the run
	// itself, X on screen), and its "chaos:" checks read the run's table.
	Chaos int

	// Watch is the data pane the step asks the learner to read, from its
	// "watch:" line (PaneNone: the layout's default).
	Watch Pane
}

// Question is a multiple-choice question with one right answer.
type Question struct {
	Line    int
	Text    string
	Choices []Choice // in the order written
}

// Choice is one answer to a question, with why it is right or wrong.
type Choice struct {
	Line    int
	Text    string
	Right   bool
	Because string
}

// Answer is the index of the right choice.
func (q Question) Answer() int {
	for i, c := range q.Choices {
		if c.Right {
			return i
		}
	}
	return -1
}

// Load parses the built-in lessons of one language, in course order.
func Load(lang string) ([]*Lesson, error) {
	if _, err := ParseLang(lang); err != nil {
		return nil, err
	}
	return LoadFS(builtinFS, lang, "lessons/"+lang, lang)
}

// LoadFS parses every *.md file in dir of fsys (shown names files in
// messages), in course order. A malformed file is an error naming
// file:line and the reason (*Error); all of them are reported.
func LoadFS(fsys fs.FS, dir, shown, lang string) ([]*Lesson, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read lessons in %s: %w", shown, err)
	}
	var out []*Lesson
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), Ext) {
			continue
		}
		f, err := fsys.Open(path.Join(dir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		l, err := Parse(strings.TrimSuffix(e.Name(), Ext), path.Join(shown, e.Name()), lang, f)
		f.Close()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, l)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].Name < out[j].Name
	})
	for i := 1; i < len(out); i++ {
		if out[i].Order == out[i-1].Order {
			errs = append(errs, &Error{File: out[i].File, Line: 1, Reason: fmt.Sprintf("order %d is also %s's", out[i].Order, out[i-1].File)})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// Find returns the lesson of that name.
func Find(all []*Lesson, name string) (*Lesson, error) {
	for _, l := range all {
		if l.Name == name {
			return l, nil
		}
	}
	names := make([]string, len(all))
	for i, l := range all {
		names[i] = l.Name
	}
	return nil, fmt.Errorf("unknown lesson %q (known: %s)", name, strings.Join(names, ", "))
}

// Solve performs the step's task on s, one solution command at a time.
// onDo, if set, is called before each command (autoplay shows it).
func (st *Step) Solve(ctx context.Context, s *sim.Sim, onDo func(scenes.Step)) error {
	for _, cmd := range st.Solution {
		if onDo != nil {
			onDo(cmd)
		}
		if err := s.Do(ctx, cmd); err != nil {
			return fmt.Errorf("step %q: %w", st.Title, err)
		}
	}
	return nil
}

// SolutionText is the solution as the lesson file writes it.
func (st *Step) SolutionText() string {
	parts := make([]string, len(st.Solution))
	for i, c := range st.Solution {
		parts[i] = c.String()
	}
	return strings.Join(parts, "; ")
}
