package workshop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/lessons"
	gossh "golang.org/x/crypto/ssh"
)

// TestWebRefusedBeyondLoopbackWithoutPassword: --web on every interface
// without --password is bad input, as --ssh's is; with one, or on
// loopback, it is not.
func TestWebRefusedBeyondLoopbackWithoutPassword(t *testing.T) {
	for _, tc := range []struct {
		web, password string
		bad           bool
	}{
		{"0.0.0.0:8080", "", true},
		{":8080", "", true},
		{"192.168.1.10:8080", "", true},
		{"0.0.0.0:8080", "pw", false},
		{"127.0.0.1:8080", "", false},
		{"localhost:0", "", false},
		{"8080", "", true},
	} {
		c := Config{SSH: "127.0.0.1:2222", Web: tc.web, Password: tc.password}
		err := c.check()
		var bad *badinput.Error
		if got := errors.As(err, &bad); got != tc.bad {
			t.Errorf("--web %s --password %q: error %v; want bad input %v", tc.web, tc.password, err, tc.bad)
		}
	}
}

// webClient is a learner's page as a Go WebSocket client: what the room
// drew, as text, and the bytes it sent.
type webClient struct {
	t   *testing.T
	c   *websocket.Conn
	mu  sync.Mutex
	out bytes.Buffer
	// refusal is the room's text message, if it sent one.
	refusal string
	ended   chan struct{}
}

func webURL(r *Room, path string) string { return "http://" + r.WebAddr() + path }

// dialWeb opens /join as a page of the room's host would.
func dialWeb(t *testing.T, r *Room, origin string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if origin == "" {
		origin = "http://" + r.WebAddr()
	}
	return websocket.Dial(ctx, "ws://"+r.WebAddr()+"/join", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
}

// joinWeb says hello as name on a cols×rows terminal.
func joinWeb(t *testing.T, r *Room, name, password string, cols, rows int) *webClient {
	t.Helper()
	c, _, err := dialWeb(t, r, "")
	if err != nil {
		t.Fatalf("join %s: %v", name, err)
	}
	c.SetReadLimit(1 << 20)
	wc := &webClient{t: t, c: c, ended: make(chan struct{})}
	hello, _ := json.Marshal(webHello{Name: name, Password: password, Lang: "en-US", Cols: cols, Rows: rows})
	if err := c.Write(t.Context(), websocket.MessageText, hello); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(wc.ended)
		for {
			typ, b, err := c.Read(context.Background())
			if err != nil {
				return
			}
			wc.mu.Lock()
			if typ == websocket.MessageText {
				wc.refusal = string(b)
			} else {
				wc.out.Write(b)
			}
			wc.mu.Unlock()
		}
	}()
	t.Cleanup(func() { c.CloseNow() })
	return wc
}

func (wc *webClient) text() string {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	return escapes.ReplaceAllString(wc.out.String(), "")
}

func (wc *webClient) bytesSent() int {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	return wc.out.Len()
}

func (wc *webClient) keys(ks ...string) {
	for _, k := range ks {
		if err := wc.c.Write(wc.t.Context(), websocket.MessageBinary, []byte(k)); err != nil {
			wc.t.Fatalf("key %q: %v", k, err)
		}
		time.Sleep(300 * time.Millisecond) // pacing: keys at a person's pace, the program's answer to one before the next
	}
}

func (wc *webClient) waitText(s string) {
	wc.t.Helper()
	testrun.Awaited(wc.t, 30*time.Second, fmt.Sprintf("the page showing %q", s), func() string { return tail(wc.text(), 2000) },
		func(string) bool { return strings.Contains(wc.text(), s) })
}

// TestWebLearnerPassesAStepAndResumes: the page is served with its
// security headers; a WebSocket from another origin, a wrong password and
// a ninth WebSocket from one address are refused; ana joins over the web
// door, is on the first lesson with her door shown as web (bea, beside her
// over SSH, as ssh), passes its
// first step by keys (p D: a payment, drained) and moves on with enter;
// sent to trace, passes its first step and moves on, closes the page, and
// joining again is on trace's step 2, as over SSH.
func TestWebLearnerPassesAStepAndResumes(t *testing.T) {
	r := startRoom(t, Config{Web: "127.0.0.1:0", Password: "s3cret"})

	res, err := http.Get(webURL(r, "/"))
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	_, _ = page.ReadFrom(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(page.String(), `type="password"`) {
		t.Errorf("GET /: %s, a password field %v", res.Status, strings.Contains(page.String(), `type="password"`))
	}
	for h, want := range map[string]string{"Content-Security-Policy": "frame-ancestors 'none'", "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff"} {
		if got := res.Header.Get(h); !strings.Contains(got, want) {
			t.Errorf("GET / %s: %q; want %q in it", h, got, want)
		}
	}
	for _, asset := range []string{"/assets/xterm/xterm.js", "/assets/xterm/addon-fit.js", "/assets/web.js", "/assets/xterm/LICENSE.xterm"} {
		res, err := http.Get(webURL(r, asset))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", asset, res.Status)
		}
	}

	for _, path := range []string{"/room", "/room?token=guess", "/room/learners", "/room/watch/ana"} {
		res, err := http.Get(webURL(r, path))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the instructor token: %s; want 401", path, res.Status)
		}
	}

	if c, res, err := dialWeb(t, r, "http://evil.example"); err == nil {
		c.CloseNow()
		t.Error("a WebSocket from another origin was accepted")
	} else if res == nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("a WebSocket from another origin: %v; want 403", err)
	}

	wrong := joinWeb(t, r, "mallory", "guess", 120, 40)
	select {
	case <-wrong.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("a wrong password was not refused")
	}
	if !strings.Contains(wrong.refusal, "password") || wrong.bytesSent() != 0 {
		t.Errorf("a wrong password: refusal %q, %d bytes of a screen", wrong.refusal, wrong.bytesSent())
	}

	// The refused socket is counted out once its handler ends.
	countedOut := func(what string) {
		t.Helper()
		testrun.Awaited(t, 10*time.Second, what+" counted out (addresses counted)", func() int {
			r.web.mu.Lock()
			defer r.web.mu.Unlock()
			return len(r.web.byAddr)
		}, func(n int) bool { return n == 0 })
	}
	countedOut("the refused WebSocket")
	var held []*websocket.Conn
	for range DefaultWebPerAddress {
		c, _, err := dialWeb(t, r, "")
		if err != nil {
			t.Fatalf("WebSocket %d of %d from one address: %v", len(held)+1, DefaultWebPerAddress, err)
		}
		held = append(held, c)
	}
	if c, res, err := dialWeb(t, r, ""); err == nil {
		c.CloseNow()
		t.Errorf("WebSocket %d from one address accepted; the cap is %d", DefaultWebPerAddress+1, DefaultWebPerAddress)
	} else if res == nil || res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("WebSocket %d from one address: %v; want 429", DefaultWebPerAddress+1, err)
	}
	for _, c := range held {
		c.CloseNow()
	}
	countedOut("the sockets closed")

	start := time.Now()
	ana := joinWeb(t, r, "ana", "s3cret", 120, 40)
	v := waitLearner(t, r, "ana", "on the first lesson, ready", func(v LearnerView) bool { return v.Lesson == "dual-write" && v.Step == 1 && v.Ready })
	t.Logf("join: %s from the WebSocket to the simulator ready", time.Since(start).Round(time.Millisecond))
	if v.Door != "web" {
		t.Errorf("ana's door: %q; want web", v.Door)
	}
	// One room, two doors: bea comes in over SSH beside her.
	cfg := clientConfig("bea", nil)
	cfg.Auth = []gossh.AuthMethod{gossh.Password("s3cret")}
	bea, err := gossh.Dial("tcp", r.sshLn.Addr().String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := bea.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	if v := waitLearner(t, r, "bea", "in over SSH", func(v LearnerView) bool { return v.Connected }); v.Door != "ssh" {
		t.Errorf("bea's door: %q; want ssh", v.Door)
	}
	_ = bea.Close()
	ana.waitText("dual-write")
	before := ana.bytesSent()
	ana.keys("p", "D")
	waitLearner(t, r, "ana", "past the first step", func(v LearnerView) bool { return v.Place == lessons.PlacePassed })
	ana.waitText("step passed")
	t.Logf("two keys (p D) and the step passed: %d bytes to the page", ana.bytesSent()-before)
	ana.keys("\r")
	waitLearner(t, r, "ana", "on the second step", func(v LearnerView) bool { return v.Step == 2 && v.Place == lessons.PlaceStep })
	// dual-write's second step goes on from the first's state, so a
	// learner back resumes at its first (ui's resumeStep); trace's second
	// starts afresh: there a learner back resumes on it.
	if err := r.SendLesson("trace", "ana"); err != nil {
		t.Fatal(err)
	}
	waitLearner(t, r, "ana", "sent to trace", func(v LearnerView) bool { return v.Lesson == "trace" && v.Step == 1 && v.Ready })
	ana.keys("p", "C", "D")
	waitLearner(t, r, "ana", "past trace's first step", func(v LearnerView) bool { return v.Place == lessons.PlacePassed })
	ana.keys("\r")
	waitLearner(t, r, "ana", "on trace's second step", func(v LearnerView) bool { return v.Step == 2 && v.Place == lessons.PlaceStep })

	ana.c.CloseNow() // the tab closed
	waitGone(t, r, "ana")
	again := joinWeb(t, r, "ana", "s3cret", 100, 30)
	v = waitLearner(t, r, "ana", "back", func(v LearnerView) bool { return v.Connected && v.Ready })
	if v.Lesson != "trace" || v.Step != 2 {
		t.Errorf("ana came back to %s step %d; want trace step 2", v.Lesson, v.Step)
	}
	again.waitText("2/")
}

// TestWebIdleLearnerIsEnded: a page that sends nothing for --web-idle has
// its session ended, its databases dropped, as if the tab had closed.
func TestWebIdleLearnerIsEnded(t *testing.T) {
	r := startRoom(t, Config{Web: "127.0.0.1:0", WebIdle: 3 * time.Second})
	ana := joinWeb(t, r, "ana", "", 120, 40)
	waitLearner(t, r, "ana", "ready", func(v LearnerView) bool { return v.Ready })
	start := time.Now()
	ana.keys("n") // a key: the idle time starts again
	select {
	case <-ana.ended:
	case <-time.After(30 * time.Second):
		t.Fatal("an idle page's session was never ended")
	}
	if d := time.Since(start); d < 3*time.Second {
		t.Errorf("the idle session ended %s after its last key; --web-idle is 3s", d)
	}
	waitGone(t, r, "ana")
}

// --web alone: a room with no SSH door serves learners in a browser, and
// its screen and its stop need none.
func TestAWebOnlyRoom(t *testing.T) {
	r := startRoom(t, Config{SSH: noSSH, Web: "127.0.0.1:0"})
	if r.SSHAddr() != "" || r.ssh != nil {
		t.Fatalf("an SSH door at %q", r.SSHAddr())
	}
	joinWeb(t, r, "ana", "", 120, 40)
	waitLearner(t, r, "ana", "ready", func(v LearnerView) bool { return v.Ready })
	m := instructorModel{room: r, st: roomStyles(), w: wordsFor("en"), sshAddr: r.SSHAddr(), width: 80, height: 24}
	_, s := screenText(m)
	if strings.Contains(s, "ssh -p") || !strings.Contains(s, "ana ") {
		t.Errorf("the web-only room's screen:\n%s", s)
	}
}
