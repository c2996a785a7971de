package workshop

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/lessons"
)

// TestTheReportCountsTheQuizRightTheFirstTime: a learner over SSH passes
// trace's two steps by keys and answers its quiz, the first question
// wrong and the others right; the report (what E and --report write)
// says three answered, two right the first time, for trace; the room
// restarted on the same data directory still says so.
func TestTheReportCountsTheQuizRightTheFirstTime(t *testing.T) {
	r, stop := startRoomStop(t, Config{})
	dataDir := r.cfg.PG.DataDir
	ana := connect(t, r, "ana", 120, 40, nil)
	waitLearner(t, r, "ana", "running", func(v LearnerView) bool { return v.Ready && v.Place == lessons.PlaceStep })
	if err := r.SendLesson("trace", "ana"); err != nil {
		t.Fatal(err)
	}
	for step := 1; step <= 2; step++ {
		waitLearner(t, r, "ana", "on trace's step "+strconv.Itoa(step), func(v LearnerView) bool {
			return v.Lesson == "trace" && v.Step == step && v.Place == lessons.PlaceStep && v.Ready
		})
		ana.keys("p", "C", "D")
		waitLearner(t, r, "ana", "past trace's step "+strconv.Itoa(step), func(v LearnerView) bool { return v.Step == step && v.Place == lessons.PlacePassed })
		ana.keys("\r")
	}
	waitLearner(t, r, "ana", "at trace's quiz", func(v LearnerView) bool { return v.Lesson == "trace" && v.Place == lessons.PlaceQuiz })
	course, err := lessons.Load("en")
	if err != nil {
		t.Fatal(err)
	}
	// The choices are in ana's own order, from the seed her progress
	// keeps.
	prog, err := lessons.LoadProgress(filepath.Join(r.dir, "learners", "ana", lessons.ProgressFile))
	if err != nil {
		t.Fatal(err)
	}
	var quiz []lessons.Question
	for _, l := range course {
		if l.Name == "trace" {
			quiz = l.WithQuizOrder(prog.QuizSeed).Quiz
		}
	}
	if len(quiz) != 3 {
		t.Fatalf("trace's quiz has %d questions; the test counts on 3", len(quiz))
	}
	for i, q := range quiz {
		choice := q.Answer()
		if i == 0 {
			choice = (choice + 1) % len(q.Choices)
		}
		ana.keys(strconv.Itoa(choice+1), "\r")
		quizAnswered(t, r, "ana", i+1)
		ana.keys("\r")
	}
	waitLearner(t, r, "ana", "done with trace", func(v LearnerView) bool { return v.Place == lessons.PlaceDone })
	ana.waitText("2 of 3 answered right")

	check := func(when string, connected bool) {
		t.Helper()
		path, lines := writeReport(t, r)
		if len(lines) != 1 {
			t.Fatalf("%s: the report has %d lines, want ana's alone: %+v", when, len(lines), lines)
		}
		a := lines[0]
		want := []QuizResult{{Lesson: "trace", Questions: 3, Answered: 3, RightFirstTime: 2}}
		if a.Learner != "ana" || a.Connected != connected || a.QuizAnswered != 3 || a.QuizRightFirst != 2 || len(a.Quizzes) != 1 || a.Quizzes[0] != want[0] {
			t.Errorf("%s: ana's report line: %+v; want 3 answered, 2 right the first time, for trace", when, a)
		}
		csv, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".csv")
		if err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(strings.TrimSpace(string(csv)), "\n")
		if len(rows) != 2 || !strings.HasSuffix(rows[0], ",quiz_answered,quiz_right_first_time,quiz_right_first_time_by_lesson") || !strings.HasSuffix(rows[1], ",3,2,trace 2/3") {
			t.Errorf("%s: the CSV:\n%s", when, csv)
		}
	}
	check("ana connected", true)

	_ = ana.client.Close()
	waitGone(t, r, "ana")
	stop()

	// The room again, through its web door alone: an SSH server stopped
	// before its Serve has begun tracking its listener races in
	// charm.land/ssh (a WaitGroup's Add beside its Wait), and this room
	// stops as soon as it has answered.
	r, _ = startRoomStop(t, Config{SSH: noSSH, Web: "127.0.0.1:0", PG: r.cfg.PG})
	if r.cfg.PG.DataDir != dataDir {
		t.Fatalf("the room restarted on %s, not %s", r.cfg.PG.DataDir, dataDir)
	}
	check("the room restarted", false)
}

// quizAnswered waits until the learner's simulator says n questions of
// its quiz are answered.
func quizAnswered(t *testing.T, r *Room, id string, n int) {
	t.Helper()
	testrun.Awaited(t, 30*time.Second, fmt.Sprintf("%s's quiz: %d answered", id, n), func() int {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.learners[id].state.QuizAnswered
	}, func(answered int) bool { return answered == n })
}
