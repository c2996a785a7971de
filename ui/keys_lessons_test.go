package ui

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// Every lesson, in both languages, is passed by key presses alone: for each
// step the learner opens the hint (h), reads the keys it shows, presses
// them, and the step's checks pass; then the quiz is answered by number.
// The keys come from the step's solution through keyPath, the same table
// the hint is drawn from, and the test asserts the hint shows them.
func TestEveryLessonByKeysAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("plays every lesson twice on the real database")
	}
	// Each lesson has its own databases and model, so they play side by
	// side, eight at once whatever -parallel says: a lesson mostly waits
	// for a key's quiet moment (80 ms), so even a machine of two cores
	// plays several in about the time of one, and eight stay well inside
	// the shared server's connections. Run may be called from several
	// goroutines. The test runs beside the package's other parallel tests;
	// the lessons on the CDC relay are TestCDCLessonsByKeysAlone's, on
	// quiet servers.
	t.Parallel()
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	// What a lesson points at and the screen cuts, read at 120×40 and
	// 80×24 at each step's hint, its pass, and the lesson's end.
	clips := clipped{scan: newFrameScan()}
	type played struct {
		lang string
		l    *lessons.Lesson
	}
	var all []played
	for _, lang := range lessons.Langs {
		course, err := lessons.Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range course {
			if !readsTheWholeServer(l) {
				all = append(all, played{lang, l})
			}
		}
	}
	// The lessons with a chaos run take a minute each, several times any
	// other: they start first, so the pool does not end waiting on one.
	slices.SortStableFunc(all, func(a, b played) int { return cmp.Compare(lessonChaosRuns(b.l), lessonChaosRuns(a.l)) })
	for _, p := range all {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			playLessonByKeys(t, nil, p.lang, p.l, &clips)
		})
	}
	wg.Wait()
	clips.report(t)
	clips.scan.reportWithin(t, lessonScanCeilings, scanBorder, scanBottom, scanPane)
}

// The lessons on the CDC relay, by keys as TestEveryLessonByKeysAlone plays
// the others, one at a time and alone on a server: a quiet one
// (pgtest.Quiet), this test's alone while it runs, beside the package's
// other parallel tests. Its figure slot WAL counts the whole server's WAL,
// and making its slot waits for every open transaction on the server, so
// another test's writes would move what it checks.
func TestCDCLessonsByKeysAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the CDC lessons twice on the real database")
	}
	t.Parallel()
	clips := clipped{scan: newFrameScan()}
	var played atomic.Int64
	// One language at a time on a quiet server of its own, the two side by
	// side: each is alone on its server.
	t.Run("languages", func(t *testing.T) {
		for _, lang := range lessons.Langs {
			course, err := lessons.Load(lang)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(lang, func(t *testing.T) {
				t.Parallel()
				srv := pgtest.Quiet(t)
				for _, l := range course {
					if readsTheWholeServer(l) {
						playLessonByKeys(t, srv, lang, l, &clips)
						played.Add(1)
					}
				}
			})
		}
	})
	if played.Load() == 0 {
		t.Fatal("no lesson runs the CDC relay: the test plays nothing")
	}
	clips.report(t)
	clips.scan.reportWithin(t, lessonScanCeilings, scanBorder, scanBottom, scanPane)
}

// lessonChaosRuns is how many chaos runs a lesson's steps ask for.
func lessonChaosRuns(l *lessons.Lesson) int {
	n := 0
	for _, st := range l.Steps {
		n += st.Chaos
	}
	return n
}

// readsTheWholeServer says whether a lesson runs the CDC relay in a step.
func readsTheWholeServer(l *lessons.Lesson) bool {
	for _, st := range l.Steps {
		if st.Settings.CDC {
			return true
		}
	}
	return false
}

// playLessonByKeys is one lesson of TestEveryLessonByKeysAlone, a subtest.
// It plays on srv, or on the shared server when srv is nil.
func playLessonByKeys(t *testing.T, srv *pg.Server, lang string, l *lessons.Lesson, clips *clipped) {
	t.Run(lang+"/"+l.Name, func(t *testing.T) {
		start, presses := time.Now(), 0
		if srv == nil {
			srv = pgtest.Server(t)
		}
		d := newDriverOn(t, srv, Options{Lesson: l.Name, Lang: lang, ProgressPath: filepath.Join(t.TempDir(), "progress.json")})
		press := func(keys ...string) {
			presses += len(keys)
			d.press(keys...)
		}
		press("+", "+", "+") // the fastest autoplay: 16 steps a second
		for i, step := range d.M.lesson.Lesson().Steps {
			if d.M.lesson.Step() != i {
				t.Fatalf("on step %d, want %d", d.M.lesson.Step()+1, i+1)
			}
			press("h")
			where := fmt.Sprintf("%s/%s step %d", lang, l.Name, i+1)
			clips.add(clippedOnScreen(d, where+" (hint)")...)
			clips.scan.scanTour(d.M, lang, where+" (hint)", i == 0)
			if step.Chaos > 0 {
				// The task is a chaos run: X, the hint says so; the
				// table is read in the learner's language.
				if !strings.Contains(d.M.lesson.KeyHint(), "X") {
					t.Errorf("step %d: the hint does not show X: %s", i+1, d.M.lesson.KeyHint())
				}
				if foot := panetest.Plain(d.M.helpView()); !strings.HasPrefix(foot, "X ") {
					t.Errorf("step %d: the key line does not begin with X: %s", i+1, foot)
				}
				press("p") // an action first: the hint keeps its X
				d.settle()
				if !strings.Contains(d.M.lesson.KeyHint(), "X") {
					t.Errorf("step %d: after an action the hint lost its X: %q", i+1, d.M.lesson.KeyHint())
				}
				press("X")
				d.waitWithin(10*time.Minute, "the chaos run", func(m Model) bool { return !m.chaos.Running() })
				if err := d.M.chaos.Err(); err != nil {
					t.Fatalf("step %d: chaos run: %v", i+1, err)
				}
				d.settle()
				table := panetest.Plain(d.M.render())
				want := map[string]string{"en": "naive write: lost events in", "es": "escritura ingenua: perdió eventos en"}[lang]
				if !strings.Contains(table, want) || !strings.Contains(table, "200/200") {
					t.Errorf("step %d: the chaos table does not show %q and 200/200:\n%s", i+1, want, table)
				}
				clips.scan.scanModel(d.M, lang, where+" (chaos result)")
				press("esc")
			}
			for _, st := range step.Solution {
				keys, err := keyPath(st, d.M.actors, d.M.settings)
				if err != nil {
					t.Fatalf("step %d: %v", i+1, err)
				}
				if shown := "`" + strings.Join(keyNames(d.M.st.Words, keys), " ") + "` " + sayStep(d.M.st.Words, st); !strings.Contains(strings.ReplaceAll(d.M.lesson.KeyHint(), "\u00a0", " "), shown) {
					t.Errorf("step %d: the hint does not show %q: %s", i+1, shown, d.M.lesson.KeyHint())
				}
				press(keys...)
				if keys[0] == "space" {
					d.waitFor("the run to end", func(m Model) bool { return !m.run.playing && m.run.idle() })
					d.settle()
				}
				if d.M.err != nil {
					t.Fatalf("step %d, %s (%s): %v", i+1, st, strings.Join(keys, " "), d.M.err)
				}
				if d.M.lesson.Dead() != nil {
					// The solution passes the step: nothing on its way may
					// be called out of reach.
					t.Errorf("step %d, after %s: said unpassable by %q", i+1, st, d.M.lesson.Dead().Source)
				}
			}
			d.waitFor("the step to pass", func(m Model) bool {
				return m.lesson.Place() == lessons.PlacePassed || m.lesson.Place() == lessons.PlaceStep && m.lesson.Checked() && !m.run.busy
			})
			d.settle()
			if d.M.lesson.Place() != lessons.PlacePassed {
				t.Fatalf("step %d did not pass by keys:\n%s", i+1, d.screen())
			}
			clips.add(clippedOnScreen(d, where+" (passed)")...)
			clips.scan.scanAt(d.M, lang, where+" (passed)", scanEnds(i == 0))
			press("enter")
			if step := d.M.lesson.Current(); step != nil && step.Fresh {
				d.waitFor("the fresh simulation", func(m Model) bool { return m.sim != nil })
				d.settle()
			}
		}
		for _, q := range d.M.lesson.Lesson().Quiz {
			press(string(rune('1'+q.Answer())), "enter", "enter")
		}
		if d.M.lesson.Place() != lessons.PlaceDone {
			t.Fatalf("the quiz did not end the lesson:\n%s", d.screen())
		}
		clips.add(clippedOnScreen(d, lang+"/"+l.Name+" (done)")...)
		clips.scan.scanModel(d.M, lang, lang+"/"+l.Name+" (done)")
		if d.M.timeline.Total() > 0 {
			// One message's story, from the timeline, once the lesson is
			// done (the story stops a run: opened earlier it would change
			// the step).
			d.M.focus = focusTimeline
			d.M.setFocus()
			// An entry about a message: the newest may be about none.
			for try := 0; try < 8 && !d.M.overlays.has(overlayStory); try++ {
				press("o")
				if !d.M.overlays.has(overlayStory) {
					press("up")
				}
			}
			if d.M.overlays.has(overlayStory) {
				clips.scan.scanModel(d.M, lang, lang+"/"+l.Name+" (story)")
				press("esc")
			}
		}
		t.Logf("%s/%s by keys: %d presses, %v", lang, l.Name, presses, time.Since(start).Round(time.Millisecond))
	})
}
