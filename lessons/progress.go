package lessons

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Progress is what a learner has done, kept per user across runs: the
// furthest step passed and whether each lesson is done. Lessons are keyed
// by name, so progress is shared by both languages.
type Progress struct {
	path    string
	Lessons map[string]LessonProgress `json:"lessons"`
	// QuizSeed orders this learner's quiz choices (Lesson.WithQuizOrder):
	// made once at random, then kept, so a restart shows the same order.
	QuizSeed uint64 `json:"quiz_seed,omitempty"`
}

// LessonProgress is one lesson's progress.
type LessonProgress struct {
	Steps  int       `json:"steps"` // steps passed, from the first
	Done   bool      `json:"done"`
	DoneAt time.Time `json:"done_at,omitzero"`
}

// ProgressFile is the file name under the state directory.
const ProgressFile = "progress.json"

// ProgressPath is where progress is kept: $XDG_STATE_HOME/outboxlab, else
// ~/.local/state/outboxlab, else (no home) the user config directory.
func ProgressPath() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "outboxlab", ProgressFile), nil
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "state", "outboxlab", ProgressFile), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("progress: no state, home or config directory: %w", err)
	}
	return filepath.Join(d, "outboxlab", ProgressFile), nil
}

// LoadProgress reads progress from path ("" = ProgressPath()); a missing
// file is no progress yet.
func LoadProgress(path string) (*Progress, error) {
	if path == "" {
		var err error
		if path, err = ProgressPath(); err != nil {
			return nil, err
		}
	}
	// A file written before quiz_seed existed keeps this new one.
	p := &Progress{path: path, Lessons: map[string]LessonProgress{}, QuizSeed: newQuizSeed()}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read progress: %w", err)
	}
	if err := json.Unmarshal(b, p); err != nil {
		return nil, fmt.Errorf("read progress %s: %w (delete the file to start over)", path, err)
	}
	if p.Lessons == nil {
		p.Lessons = map[string]LessonProgress{}
	}
	return p, nil
}

func newQuizSeed() uint64 {
	for {
		if s := rand.Uint64(); s != 0 {
			return s
		}
	}
}

// Path is the file Save writes.
func (p *Progress) Path() string { return p.path }

// Done reports whether the lesson is done.
func (p *Progress) Done(name string) bool { return p.Lessons[name].Done }

// Steps is how many of the lesson's steps have been passed.
func (p *Progress) Steps(name string) int { return p.Lessons[name].Steps }

// MarkStep records that steps 1..n of the lesson passed (it never goes back).
func (p *Progress) MarkStep(name string, n int) {
	lp := p.Lessons[name]
	lp.Steps = max(lp.Steps, n)
	p.Lessons[name] = lp
}

// MarkDone records the lesson as done at now.
func (p *Progress) MarkDone(name string, now time.Time) {
	lp := p.Lessons[name]
	if !lp.Done {
		lp.Done, lp.DoneAt = true, now.UTC()
	}
	p.Lessons[name] = lp
}

// Reset forgets the named lessons' progress, or every lesson's when no
// name is given.
func (p *Progress) Reset(names ...string) {
	if len(names) == 0 {
		p.Lessons = map[string]LessonProgress{}
		return
	}
	for _, n := range names {
		delete(p.Lessons, n)
	}
}

// DoneNames lists the lessons done, sorted.
func (p *Progress) DoneNames() []string {
	var out []string
	for n, lp := range p.Lessons {
		if lp.Done {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Save writes the progress atomically (a temporary file renamed over the
// old one), creating its directory (mode 0700) when needed.
func (p *Progress) Save() error {
	if err := os.MkdirAll(filepath.Dir(p.path), 0o700); err != nil {
		return fmt.Errorf("save progress: %w", err)
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("save progress: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p.path), ".progress-*.json")
	if err != nil {
		return fmt.Errorf("save progress: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("save progress: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save progress: %w", err)
	}
	if err := os.Rename(tmp.Name(), p.path); err != nil {
		return fmt.Errorf("save progress: %w", err)
	}
	return nil
}
