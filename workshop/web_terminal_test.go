package workshop

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/outboxlab/outboxlab/internal/testrun"

	"github.com/outboxlab/outboxlab/lessons"
)

// joinInBrowser opens the room's page in ctx's browser and joins as name;
// it returns once the learner's simulator runs and the page shows it.
func joinInBrowser(t *testing.T, ctx context.Context, r *Room, name string) {
	t.Helper()
	do(t, ctx, "join as "+name, chromedp.Navigate("http://"+r.WebAddr()+"/"), chromedp.WaitVisible(chromedp.CSS("#name")),
		chromedp.SendKeys(chromedp.CSS("#name"), name), chromedp.Click(chromedp.CSS("#join button")))
	waitLearner(t, r, name, "ready", func(v LearnerView) bool { return v.Ready && v.Place == lessons.PlaceStep })
	waitTerm(t, ctx, regexp.MustCompile(`dual-write`))
}

// grantClipboard lets the page read and write the clipboard, as a browser
// does once its user allowed it: the test reads what a selection copied.
func grantClipboard(t *testing.T, ctx context.Context, r *Room) {
	t.Helper()
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true},
			Setting:    cdpbrowser.PermissionSettingGranted, Origin: "http://" + r.WebAddr(),
		})
		if err != nil {
			t.Fatalf("grant %s: %v", name, err)
		}
	}
}

// cell is where the centre of the terminal's cell (col, row), from 0, is
// on the page, in CSS pixels.
func cell(t *testing.T, ctx context.Context, col, row int) (x, y float64) {
	t.Helper()
	xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
		const rows = document.querySelector('.xterm-rows').getBoundingClientRect();
		const cols = document.querySelector('.xterm-rows > div').textContent.length;
		const n = document.querySelectorAll('.xterm-rows > div').length;
		const w = rows.width / cols, h = rows.height / n;
		return [rows.left + (`+strconv.Itoa(col)+` + 0.5) * w, rows.top + (`+strconv.Itoa(row)+` + 0.5) * h];
	})()`))
	if err != nil || len(xy) != 2 {
		t.Fatalf("cell %d,%d: %v", col, row, err)
	}
	return xy[0], xy[1]
}

func mouse(typ input.DispatchMouseEventType, x, y float64, mods int64, button input.MouseButton, buttons int64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Modifiers: mods, Button: button, Buttons: buttons, ClickCount: 1}
		if typ == input.DispatchMouseEventTypeMouseMoved {
			p.ClickCount = 0
		}
		_, err := chromedp.Call(ctx, input.DispatchMouseEvent, p)
		return err
	})
}

// wheelParams are Input.dispatchMouseEvent's for a wheel: the protocol
// wants deltaX even when it is 0, which input.DispatchMouseEventParams
// leaves out.
type wheelParams struct {
	Type   input.DispatchMouseEventType `json:"type"`
	X      float64                      `json:"x"`
	Y      float64                      `json:"y"`
	DeltaX float64                      `json:"deltaX"`
	DeltaY float64                      `json:"deltaY"`
}

var dispatchWheel = cdp.Command[wheelParams, cdp.Empty]{Method: input.CommandDispatchMouseEvent}

// findRow is the row of the page's terminal that holds s, and where in
// it (-1 when none does).
func findRow(t *testing.T, ctx context.Context, s string) (row, col int) {
	t.Helper()
	for i, line := range strings.Split(termText(t, ctx), "\n") {
		if c := strings.Index(line, s); c >= 0 {
			return i, len([]rune(line[:c]))
		}
	}
	return -1, -1
}

// TestWebCopyPasteAndTheWheelInChromium: in a real browser, a learner
// raises a hand with a line pasted (Ctrl+V, from the clipboard); selects
// text of the terminal with Shift and the mouse (the simulator tracks the
// mouse: Shift selects, as in xterm) and finds it on the clipboard; and
// scrolls the timeline with the mouse wheel over it, as in a terminal
// (the wheel is sent to the simulator as the mouse's).
func TestWebCopyPasteAndTheWheelInChromium(t *testing.T) {
	r := startRoom(t, Config{Web: "127.0.0.1:0"})
	ctx := browser(t, "en-US", 1024, 640)
	do(t, ctx, "open the page", chromedp.Navigate("http://"+r.WebAddr()+"/"))
	grantClipboard(t, ctx, r)
	joinInBrowser(t, ctx, r, "ana")

	// Paste: ! opens the hand's prompt; Ctrl+V pastes the clipboard's
	// line into it; enter raises the hand with it.
	const line = "stuck on step 2, the drain shows 0"
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`navigator.clipboard.writeText(`+"`"+line+"`"+`).then(() => true)`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("the clipboard: %v", err)
	}
	pressKeys(t, ctx, "!")
	waitTerm(t, ctx, regexp.MustCompile(`enter raises your hand`))
	do(t, ctx, "Ctrl+V", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for _, e := range []input.DispatchKeyEventParams{
			{Type: input.DispatchKeyEventTypeKeyDown, Key: "v", Code: "KeyV", WindowsVirtualKeyCode: 86, Modifiers: 2, Commands: []string{"paste"}},
			{Type: input.DispatchKeyEventTypeKeyUp, Key: "v", Code: "KeyV", WindowsVirtualKeyCode: 86, Modifiers: 2},
		} {
			if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, e); err != nil {
				return err
			}
		}
		return nil
	}))
	waitTerm(t, ctx, regexp.MustCompile(regexp.QuoteMeta(line)))
	pressKeys(t, ctx, "\r")
	v := waitLearner(t, r, "ana", "with a hand up", func(v LearnerView) bool { return !v.Hand.IsZero() })
	if v.HandText != line {
		t.Errorf("ana's hand says %q; she pasted %q", v.HandText, line)
	}
	shot(t, ctx, "pasted-hand")

	// Copy: Shift and a drag over a word of the lesson's title selects
	// it; the page puts the selection on the clipboard.
	const word = "dual-write"
	row, col := findRow(t, ctx, word)
	if row < 0 {
		t.Fatalf("no %q on the page's terminal:\n%s", word, termText(t, ctx))
	}
	x0, y := cell(t, ctx, col, row)
	// To the right edge of the word's last cell, as a hand that drags
	// over it does.
	xl, _ := cell(t, ctx, col+len(word)-1, row)
	x1 := xl + (xl-x0)/float64(len(word)-1)*0.45
	do(t, ctx, "select "+word+" with Shift and the mouse",
		mouse(input.DispatchMouseEventTypeMouseMoved, x0, y, 8, input.MouseButtonNone, 0),
		mouse(input.DispatchMouseEventTypeMousePressed, x0, y, 8, input.MouseButtonLeft, 1),
		mouse(input.DispatchMouseEventTypeMouseMoved, (x0+x1)/2, y, 8, input.MouseButtonLeft, 1),
		mouse(input.DispatchMouseEventTypeMouseMoved, x1, y, 8, input.MouseButtonLeft, 1),
		mouse(input.DispatchMouseEventTypeMouseReleased, x1, y, 8, input.MouseButtonLeft, 0))
	testrun.Awaited(t, 10*time.Second, fmt.Sprintf("after selecting %q the clipboard holding it", word), func() string {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("read the clipboard: %v", err)
		}
		return got
	}, func(got string) bool { return got == word })
	shot(t, ctx, "selected")

	// The wheel over the timeline scrolls it, as in a terminal: the
	// simulator tracks the mouse, so the page sends the wheel to it. The
	// step passed (p D), the timeline holds more entries than it shows.
	r.AnswerHand("ana")
	pressKeys(t, ctx, "p", "D")
	waitLearner(t, r, "ana", "past the first step", func(v LearnerView) bool { return v.Place == lessons.PlacePassed })
	waitTerm(t, ctx, regexp.MustCompile(`step passed`))
	head, _ := findRow(t, ctx, "Timeline")
	if head < 0 {
		t.Fatalf("no timeline on the page's terminal:\n%s", termText(t, ctx))
	}
	// The timeline's rows, left of the lesson's pane.
	entries := func() string {
		lines := strings.Split(termText(t, ctx), "\n")
		var out []string
		for _, l := range lines[head+1 : min(len(lines), head+6)] {
			left, _, _ := strings.Cut(l, "│")
			out = append(out, strings.TrimSpace(left))
		}
		return strings.Join(out, "\n")
	}
	before := entries()
	wx, wy := cell(t, ctx, 10, head+2)
	wheel := func(dy float64) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Call(ctx, dispatchWheel, wheelParams{Type: input.DispatchMouseEventTypeMouseWheel, X: wx, Y: wy, DeltaY: dy})
			return err
		})
	}
	scrolled := func(what string, changed func(string) bool) {
		t.Helper()
		testrun.Awaited(t, 10*time.Second, what+" (before the wheel:\n"+before+")", entries, changed)
	}
	do(t, ctx, "the wheel up over the timeline", wheel(-120), wheel(-120), wheel(-120))
	scrolled("the wheel up scrolling the timeline", func(now string) bool { return now != before })
	shot(t, ctx, "wheeled")
	up := entries()
	do(t, ctx, "the wheel down over the timeline", wheel(120), wheel(120), wheel(120))
	scrolled("the wheel down scrolling the timeline back", func(now string) bool { return now != up })
}

// TestWebOnAPhoneHeldSideways: on a phone held sideways (844×390, less
// the browser's own bars: 844×340) the page shrinks the font until the
// simulator's 80×24 fit, and the learner gets the simulator, usable: a
// key works. Held upright (390×844), even
// the smallest font the page uses does not fit 80 columns: the page says
// so and asks to turn the phone.
func TestWebOnAPhoneHeldSideways(t *testing.T) {
	r := startRoom(t, Config{Web: "127.0.0.1:0"})
	const w, h = 844, 340
	ctx := browser(t, "en-US", w, h)
	do(t, ctx, "a phone held sideways", chromedp.EmulateViewport(w, h, chromedp.EmulateMobile))
	joinInBrowser(t, ctx, r, "ana")
	cols, rows := frameSize(r, "ana")
	if cols < 80 || rows < 24 {
		t.Fatalf("sideways, the room draws %d×%d; want at least 80×24", cols, rows)
	}
	size, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`parseFloat(getComputedStyle(document.querySelector('.xterm-rows')).fontSize)`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d×%d: the page's terminal is %d×%d at %.0f px", w, h, cols, rows, size)
	if size >= 14 {
		t.Errorf("sideways, the font is %.0f px: the page's usual 14 px would not fit 24 rows in %d px", size, h)
	}
	if small, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.getElementById('small').hidden`)); small {
		t.Error("sideways, the page says the screen is too small")
	}
	if strings.Contains(termText(t, ctx), "terminal too small") {
		t.Errorf("sideways, the simulator says too small:\n%s", termText(t, ctx))
	}
	pressKeys(t, ctx, "p", "D")
	waitLearner(t, r, "ana", "past the first step", func(v LearnerView) bool { return v.Place == lessons.PlacePassed })
	waitTerm(t, ctx, regexp.MustCompile(`step passed`))
	sameScreen(t, ctx, r, "ana")
	shot(t, ctx, "phone-landscape")

	do(t, ctx, "the phone upright", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	testrun.Awaited(t, 20*time.Second, "upright, the page saying to turn the phone", func() string {
		msg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('small').hidden ? "" : document.getElementById('small').textContent`))
		if err != nil {
			t.Fatal(err)
		}
		return msg
	}, func(msg string) bool { return strings.Contains(msg, "turn your phone sideways") })
	shot(t, ctx, "phone-upright")
	do(t, ctx, "sideways again", chromedp.EmulateViewport(w, h, chromedp.EmulateMobile))
	testrun.Eventually(t, 20*time.Second, "sideways again, the page no longer saying too small", func() bool {
		if small, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.getElementById('small').hidden`)); small {
			return false
		}
		c, h := frameSize(r, "ana")
		return c >= 80 && h >= 24
	})
}
