package workshop

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/outboxlab/outboxlab/internal/testrun"

	"github.com/outboxlab/outboxlab/lessons"
)

// chromiumPath is the browser the tests drive: Debian's chromium (.ci/run
// installs it). Off CI a missing one skips; under CI it fails.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium: .ci/run installs it (apt-get install chromium)")
	}
	t.Skip("no chromium (apt-get install chromium)")
	return ""
}

// browser starts a headless chromium in a profile of its own, in the
// given language, with a w×h window; it ends with the test.
func browser(t *testing.T, lang string, w, h int) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		// A closed network refuses the connections these would open.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("lang", lang),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(w, h),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); acancel() })
	ctx, tcancel := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(tcancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(w), int64(h))); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	// Headless chromium's navigator.language does not follow --lang:
	// the user agent override's Accept-Language sets it.
	ua, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.userAgent`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	err = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua, AcceptLanguage: lang})
		return err
	}))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return ctx
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// termText is the page's terminal as text, a line per row (xterm.js's DOM
// renderer draws a div per row).
func termText(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('.xterm-rows > div')).map(d => d.textContent.replace(/\u00a0/g, ' ')).join('\n')`))
	if err != nil {
		t.Fatalf("the terminal's text: %v", err)
	}
	return s
}

func waitTerm(t *testing.T, ctx context.Context, re *regexp.Regexp) {
	t.Helper()
	testrun.Awaited(t, 60*time.Second, "the page's terminal showing "+re.String(), func() string { return termText(t, ctx) }, re.MatchString)
}

// pressKeys types into the page's terminal as a learner does.
func pressKeys(t *testing.T, ctx context.Context, keys ...string) {
	t.Helper()
	for _, k := range keys {
		for _, r := range k {
			do(t, ctx, "key "+k, typeKey(r))
		}
		time.Sleep(300 * time.Millisecond) // pacing: keys at a person's pace, the program's answer to one before the next
	}
}

// typeKey presses and releases a key as a keyboard does: a keyDown with
// its text, then a keyUp. chromedp.KeyEvent's separate char event reached
// xterm.js as a second key (one p, two payments).
func typeKey(r rune) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		evs := kb.Encode(r)
		down, up := *evs[0], *evs[len(evs)-1]
		for _, e := range evs {
			if e.Type == kb.KeyChar {
				down.Text, down.UnmodifiedText = e.Text, e.UnmodifiedText
			}
		}
		for _, e := range []input.DispatchKeyEventParams{down, up} {
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, e); err != nil {
				return err
			}
		}
		return nil
	})
}

// shot keeps a screenshot of the page as the test's artifact (go test
// -artifacts -outputdir DIR keeps them).
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	// What the window shows: a full-page capture re-lays the page out at
	// its whole height, and a phone's emulated window came out blank.
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// sameScreen waits until the page's terminal shows, row by row, the
// screen the room last drew for the learner.
func sameScreen(t *testing.T, ctx context.Context, r *Room, id string) {
	t.Helper()
	lines := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			out = append(out, strings.TrimRight(ansi.Strip(l), " "))
		}
		return out
	}
	testrun.Awaited(t, 10*time.Second, "the page's terminal the screen the room drew", func() [2]string {
		return [2]string{strings.Join(lines(termText(t, ctx)), "\n"), strings.Join(lines(r.Frame(id)), "\n")}
	}, func(pageRoom [2]string) bool { return pageRoom[0] == pageRoom[1] })
}

// roomPage is the instructor in another tab: /room without the token is
// refused; with it, the list shows ana at her step through the web door,
// a click shows her screen read-only, and she is told she is watched
// until the tab closes.
func roomPage(t *testing.T, browserCtx context.Context, r *Room) {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx)
	base := "http://" + r.WebAddr()
	res, err := chromedp.Run(ctx, chromedp.NavigateResponse(base+"/room"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 401 {
		t.Errorf("/room without the token: %d; want 401", res.Status)
	}
	do(t, ctx, "the room's page", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(base+"/room?token="+r.RoomToken()),
		chromedp.WaitVisible(chromedp.CSS(`#learners tr[data-id="ana"]`)))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || strings.Contains(loc, "token") {
		t.Errorf("the room's page left the token in the address bar: %s %v", loc, err)
	}
	row, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#learners tr[data-id="ana"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`ana\s+web\s+dual-write\s+2/2\s+working`).MatchString(row) {
		t.Errorf("ana's line on the room's page: %q", row)
	}
	do(t, ctx, "watch ana", chromedp.Click(chromedp.CSS(`#learners tr[data-id="ana"]`)))
	isWatched := func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.learners["ana"].watched
	}
	testrun.Awaited(t, 20*time.Second, "the room's page showing ana's screen, ana watched", func() string {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('#screen .xterm-rows > div')).map(d => d.textContent).join('\n')`))
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("watched %v:\n%s", isWatched(), s)
	}, func(s string) bool { return strings.HasPrefix(s, "watched true:") && strings.Contains(s, "Step 2/2") })
	shot(t, ctx, "room-laptop")
	cancel()
	testrun.Eventually(t, 10*time.Second, "ana no longer watched after the room's tab closed", func() bool { return !isWatched() })
}

// frameSize is the learner's screen as the room last drew it: its widest
// line and its lines.
func frameSize(r *Room, id string) (cols, rows int) {
	lines := strings.Split(r.Frame(id), "\n")
	for _, l := range lines {
		cols = max(cols, ansi.StringWidth(l))
	}
	return cols, len(lines)
}

// TestWebLearnerInChromium is a learner in a real browser: the join page
// refuses a wrong password; ana joins, passes lesson 1's first step by
// keys (p D) and moves on; the window is made smaller and her screen in
// the room follows the page's terminal; sent to trace, she passes its
// first step and moves on, reloads the page and is back on trace's step
// 2 without typing her name again; on a phone's screen the simulator says
// it is too small. Screenshots at a laptop's size and a phone's.
func TestWebLearnerInChromium(t *testing.T) {
	r := startRoom(t, Config{Web: "127.0.0.1:0", Password: "s3cret"})
	ctx := browser(t, "en-US", 1280, 800)
	page := "http://" + r.WebAddr() + "/"

	do(t, ctx, "open the page", chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#name")))
	do(t, ctx, "a phone's size", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	shot(t, ctx, "join-phone")
	do(t, ctx, "a laptop's size", chromedp.EmulateViewport(1280, 800))
	shot(t, ctx, "join-laptop")

	do(t, ctx, "a wrong password",
		chromedp.SendKeys(chromedp.CSS("#name"), "ana"),
		chromedp.SendKeys(chromedp.CSS("#password"), "guess"),
		chromedp.Click(chromedp.CSS("#join button")))
	testrun.Awaited(t, 20*time.Second, "a wrong password: the page saying so", func() string {
		msg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('error').textContent`))
		if err != nil {
			t.Fatal(err)
		}
		return msg
	}, func(msg string) bool { return msg == "Wrong password." })
	if n := len(r.Learners()); n != 0 {
		t.Errorf("a wrong password let someone in: %+v", r.Learners())
	}

	start := time.Now()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById('password').select(); true`)); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "join as ana",
		typeKey('\b'),
		chromedp.SendKeys(chromedp.CSS("#password"), "s3cret"),
		chromedp.Click(chromedp.CSS("#join button")))
	v := waitLearner(t, r, "ana", "on the first lesson, ready", func(v LearnerView) bool { return v.Lesson == "dual-write" && v.Step == 1 && v.Ready })
	t.Logf("join: %s from the click to the simulator ready", time.Since(start).Round(time.Millisecond))
	if v.Door != "web" {
		t.Errorf("ana's door: %q; want web", v.Door)
	}
	waitTerm(t, ctx, regexp.MustCompile(`dual-write`))
	pressKeys(t, ctx, "p", "D")
	waitLearner(t, r, "ana", "past the first step", func(v LearnerView) bool { return v.Place == lessons.PlacePassed })
	waitTerm(t, ctx, regexp.MustCompile(`step passed`))
	sameScreen(t, ctx, r, "ana")
	shot(t, ctx, "learner-laptop")
	pressKeys(t, ctx, "\r")
	waitLearner(t, r, "ana", "on the second step", func(v LearnerView) bool { return v.Step == 2 && v.Place == lessons.PlaceStep })

	roomPage(t, ctx, r)

	// The page's rows are the room's: the terminal fills the window.
	rows := func() int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.xterm-rows > div').length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	wide, high := frameSize(r, "ana")
	if high != rows() || wide < 140 {
		t.Errorf("at 1280×800: the room draws %d×%d; the page has %d rows", wide, high, rows())
	}
	do(t, ctx, "a smaller window", chromedp.EmulateViewport(960, 600))
	drawn := testrun.Awaited(t, 20*time.Second, fmt.Sprintf("the room drawing smaller than %d×%d, the page's rows", wide, high), func() [3]int {
		w, h := frameSize(r, "ana")
		return [3]int{w, h, rows()}
	}, func(whr [3]int) bool { return whr[0] < wide && whr[1] < high && whr[1] == whr[2] })
	t.Logf("resized: the room draws %d×%d (was %d×%d)", drawn[0], drawn[1], wide, high)

	if err := r.SendLesson("trace", "ana"); err != nil {
		t.Fatal(err)
	}
	waitLearner(t, r, "ana", "sent to trace", func(v LearnerView) bool { return v.Lesson == "trace" && v.Step == 1 && v.Ready })
	pressKeys(t, ctx, "p", "C", "D")
	waitLearner(t, r, "ana", "past trace's first step", func(v LearnerView) bool { return v.Place == lessons.PlacePassed })
	pressKeys(t, ctx, "\r")
	waitLearner(t, r, "ana", "on trace's second step", func(v LearnerView) bool { return v.Step == 2 && v.Place == lessons.PlaceStep })

	// The page joins again at once, as ana: her program is a new one.
	r.mu.Lock()
	before := r.learners["ana"].program
	r.mu.Unlock()
	do(t, ctx, "reload", chromedp.Reload())
	v = waitLearner(t, r, "ana", "back after the reload", func(v LearnerView) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		p := r.learners["ana"].program
		return p != nil && p != before && v.Connected && v.Ready
	})
	if v.Lesson != "trace" || v.Step != 2 {
		t.Errorf("after the reload ana is on %s step %d; want trace step 2", v.Lesson, v.Step)
	}
	if n := len(r.Learners()); n != 1 {
		t.Errorf("after the reload the room has %d learners; want ana alone: %+v", n, r.Learners())
	}
	waitTerm(t, ctx, regexp.MustCompile(`trace`))
	do(t, ctx, "a phone's size", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	// A phone's 45 columns are below the simulator's 80: it says so
	// (once the room's notice over its one line has gone).
	waitTerm(t, ctx, regexp.MustCompile(`terminal too small`))
	shot(t, ctx, "learner-phone")
}

// TestWebLearnerInChromiumInSpanish: a browser in Spanish gets the page
// and the course in Spanish.
func TestWebLearnerInChromiumInSpanish(t *testing.T) {
	r := startRoom(t, Config{Web: "127.0.0.1:0"})
	ctx := browser(t, "es-ES", 1280, 800)
	do(t, ctx, "open the page", chromedp.Navigate("http://"+r.WebAddr()+"/"), chromedp.WaitVisible(chromedp.CSS("#name")))
	label, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#join label span")))
	if err != nil {
		t.Fatal(err)
	}
	if label != "Tu nombre" {
		t.Errorf("the name's label in Spanish: %q", label)
	}
	shot(t, ctx, "join-es")
	do(t, ctx, "join as bea", chromedp.SendKeys(chromedp.CSS("#name"), "bea"), chromedp.Click(chromedp.CSS("#join button")))
	waitLearner(t, r, "bea", "on the first lesson, ready", func(v LearnerView) bool { return v.Lesson == "dual-write" && v.Ready })
	waitTerm(t, ctx, regexp.MustCompile(`lección`))
	shot(t, ctx, "learner-es")
}
