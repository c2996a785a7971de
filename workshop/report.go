package workshop

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/lessons"
)

// stats are a learner's counts in the room, kept in their directory so a
// restart of the room (or their reconnection) goes on counting.
type stats struct {
	Passed int        `json:"passed"`
	Hints  int        `json:"hints"`
	Hands  int        `json:"hands"`
	Steps  []stepTime `json:"steps,omitempty"`
	// Quiz is each lesson's quiz as first answered, by lesson.
	Quiz quizzes `json:"quiz,omitempty"`
}

// quizzes are a learner's quizzes as first answered, by lesson.
type quizzes map[string]*quizFirst

// quizFirst is a lesson's quiz as the learner first answered it: Right[i]
// says whether question i's first answer was right. Questions come in
// order, so a quiz taken again (the lesson done twice, a reconnection in
// the middle of it) adds only the questions not reached before.
type quizFirst struct {
	Questions int    `json:"questions"`
	Right     []bool `json:"right"`
}

// rightFirst counts the questions right at the first answer.
func (q *quizFirst) rightFirst() int {
	n := 0
	for _, ok := range q.Right {
		if ok {
			n++
		}
	}
	return n
}

// answer records the answer to question i (from 0) if it is the first.
func (qs *quizzes) answer(lesson string, questions, i int, right bool) bool {
	if *qs == nil {
		*qs = quizzes{}
	}
	q := (*qs)[lesson]
	if q == nil {
		q = &quizFirst{Questions: questions}
		(*qs)[lesson] = q
	}
	if i != len(q.Right) {
		return false
	}
	q.Right = append(q.Right, right)
	return true
}

// stepTime is how long a learner took on one step they passed.
type stepTime struct {
	Lesson  string  `json:"lesson"`
	Step    int     `json:"step"` // from 1
	Seconds float64 `json:"seconds"`
}

const statsFile = "stats.json"

// loadStats reads a learner's counts; none yet (or a damaged file) is zero.
func loadStats(dir string) stats {
	var s stats
	if b, err := os.ReadFile(filepath.Join(dir, statsFile)); err == nil {
		_ = json.Unmarshal(b, &s)
	}
	return s
}

// saveStats writes the learner's counts; r.mu held.
func (l *learner) saveStats() {
	s := stats{Passed: l.passed, Hints: l.hints, Hands: l.hands, Steps: l.stepTimes, Quiz: l.quiz}
	b, _ := json.Marshal(s)
	tmp := filepath.Join(l.dir, statsFile+".tmp")
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, filepath.Join(l.dir, statsFile))
	}
}

// errNoReport is E in a room that keeps no record.
var errNoReport = errors.New("this room keeps no report (--no-report)")

// ReportLine is one learner's line of the room's report.
type ReportLine struct {
	Learner     string     `json:"learner"`
	Name        string     `json:"name"` // as they typed it
	Connected   bool       `json:"connected"`
	Lesson      string     `json:"lesson"` // where they are now
	Step        int        `json:"step"`
	LessonsDone []string   `json:"lessons_done"`
	StepsPassed int        `json:"steps_passed"`
	Hints       int        `json:"hints"`
	HandsRaised int        `json:"hands_raised"`
	StepTimes   []stepTime `json:"step_times"`
	// QuizAnswered questions answered, QuizRightFirst of them right at
	// the first answer, over every lesson; Quizzes lesson by lesson.
	QuizAnswered   int          `json:"quiz_answered"`
	QuizRightFirst int          `json:"quiz_right_first_time"`
	Quizzes        []QuizResult `json:"quizzes"`
}

// QuizResult is one lesson's quiz in the report.
type QuizResult struct {
	Lesson         string `json:"lesson"`
	Questions      int    `json:"questions"`
	Answered       int    `json:"answered"`
	RightFirstTime int    `json:"right_first_time"`
}

// quizResults are a learner's quizzes in the course's order (lessons the
// course no longer has after it, by name), with their totals.
func (r *Room) quizResults(q quizzes) (out []QuizResult, answered, right int) {
	out = []QuizResult{}
	for name, f := range q {
		out = append(out, QuizResult{Lesson: name, Questions: f.Questions, Answered: len(f.Right), RightFirstTime: f.rightFirst()})
		answered += len(f.Right)
		right += f.rightFirst()
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := r.lessonIndex(out[i].Lesson), r.lessonIndex(out[j].Lesson)
		if a < 0 {
			a = len(r.course)
		}
		if b < 0 {
			b = len(r.course)
		}
		if a != b {
			return a < b
		}
		return out[i].Lesson < out[j].Lesson
	})
	return out, answered, right
}

// Report is every learner's line, by name: those who connected since the
// room started and those whose directory an earlier room on this data
// directory left.
func (r *Room) Report() []ReportLine {
	r.mu.Lock()
	byID := map[string]ReportLine{}
	for id, l := range r.learners {
		line := ReportLine{Learner: id, Name: l.user, Connected: l.program != nil, Lesson: l.state.Lesson, Step: l.state.Step + 1,
			StepsPassed: l.passed, Hints: l.hints, HandsRaised: l.hands, StepTimes: append([]stepTime(nil), l.stepTimes...)}
		line.Quizzes, line.QuizAnswered, line.QuizRightFirst = r.quizResults(l.quiz)
		byID[id] = line
	}
	r.mu.Unlock()
	dirs, _ := os.ReadDir(filepath.Join(r.dir, "learners"))
	for _, d := range dirs {
		if _, ok := byID[d.Name()]; ok || !d.IsDir() {
			continue
		}
		s := loadStats(filepath.Join(r.dir, "learners", d.Name()))
		line := ReportLine{Learner: d.Name(), Name: d.Name(), StepsPassed: s.Passed, Hints: s.Hints, HandsRaised: s.Hands, StepTimes: s.Steps}
		line.Quizzes, line.QuizAnswered, line.QuizRightFirst = r.quizResults(s.Quiz)
		byID[d.Name()] = line
	}
	out := make([]ReportLine, 0, len(byID))
	for id, line := range byID {
		if prog, err := lessons.LoadProgress(filepath.Join(r.dir, "learners", id, lessons.ProgressFile)); err == nil {
			line.LessonsDone = prog.DoneNames()
		}
		if line.LessonsDone == nil {
			line.LessonsDone = []string{}
		}
		if line.StepTimes == nil {
			line.StepTimes = []stepTime{}
		}
		out = append(out, line)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Learner < out[j].Learner })
	return out
}

// WriteReport writes the report as PATH.json and PATH.csv (path "": the
// room's directory, report-TIME) and returns the JSON file's path.
func (r *Room) WriteReport(path string) (string, error) {
	if r.cfg.NoReport {
		return "", errNoReport
	}
	if path == "" {
		path = filepath.Join(r.dir, "report-"+time.Now().Format("20060102-150405"))
	}
	path = strings.TrimSuffix(strings.TrimSuffix(path, ".json"), ".csv")
	lines := r.Report()
	b, err := json.MarshalIndent(lines, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path+".json", append(b, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	f, err := os.OpenFile(path+".csv", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"learner", "name", "connected", "lesson", "step", "lessons_done", "steps_passed", "hints", "hands_raised", "seconds_on_passed_steps",
		"quiz_answered", "quiz_right_first_time", "quiz_right_first_time_by_lesson"})
	for _, l := range lines {
		var secs float64
		for _, st := range l.StepTimes {
			secs += st.Seconds
		}
		// One cell for the quizzes, a lesson each: "trace 2/3" is two of
		// trace's three questions right at the first answer.
		var quizzes []string
		for _, q := range l.Quizzes {
			quizzes = append(quizzes, fmt.Sprintf("%s %d/%d", q.Lesson, q.RightFirstTime, q.Questions))
		}
		_ = w.Write([]string{l.Learner, l.Name, strconv.FormatBool(l.Connected), l.Lesson, strconv.Itoa(l.Step), strings.Join(l.LessonsDone, " "),
			strconv.Itoa(l.StepsPassed), strconv.Itoa(l.Hints), strconv.Itoa(l.HandsRaised), strconv.FormatFloat(secs, 'f', 0, 64),
			strconv.Itoa(l.QuizAnswered), strconv.Itoa(l.QuizRightFirst), strings.Join(quizzes, "; ")})
	}
	w.Flush()
	if err := errors.Join(w.Error(), f.Close()); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return path + ".json", nil
}
