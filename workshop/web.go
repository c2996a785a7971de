package workshop

import (
	"bytes"
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/charmbracelet/colorprofile"
	"github.com/coder/websocket"
	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/httpapi/deadline"
	"github.com/outboxlab/outboxlab/lessons"
)

// The web door: a page whose terminal (xterm.js) runs the learner's
// program over a WebSocket, the same program, admission and cleanup as
// the SSH door's (enter).
//
// The WebSocket's messages: the page's first is a text one, webHello;
// then binary ones are keys (what the terminal sends, mouse and paste
// included) and text ones a new size (webSize). The room's binary messages
// are the terminal's output; a text one (webRefusal) says why it closes.

//go:embed webassets
var webAssets embed.FS

// DefaultWebIdle is how long a web learner's page may send nothing (no
// key, no resize) before their session ends, as if they had closed it.
const DefaultWebIdle = 30 * time.Minute

// DefaultWebPerAddress is how many WebSockets one address may hold at
// once (--web-per-address): a learner with a few tabs, not a script
// opening simulators by the hundred. A room whose learners come through
// one address (a NAT, a proxy) needs it raised to the room's size.
const DefaultWebPerAddress = 8

// webHelloWithin is how long a page has to say who it is once its
// WebSocket is open.
const webHelloWithin = 10 * time.Second

// webWriteWithin bounds one write of output to a page: a page that reads
// nothing for that long is cut off rather than holding its program.
const webWriteWithin = 10 * time.Second

// webSecurityHeaders are on every answer of the web door: scripts and
// styles from the page's own assets only (xterm.js sets styles inline),
// the WebSocket to the same host, no framing, no sniffing.
var webSecurityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
		"frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
	"X-Frame-Options":        "DENY",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "no-referrer",
	"Cache-Control":          "no-store",
}

// webHello is the page's first message: who joins, and their terminal.
type webHello struct {
	Name     string `json:"name"`
	Password string `json:"password"`
	Lang     string `json:"lang"` // the browser's (navigator.language)
	Cols     int    `json:"cols"`
	Rows     int    `json:"rows"`
}

// webSize is the page's terminal resized.
type webSize struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// webRefusal says why the room closes a page's WebSocket before a
// program runs: password, name (none given), busy (too many from the
// address).
type webRefusal struct {
	Error string `json:"error"`
}

// webDoor is the web door's server and its count of connections per
// address.
type webDoor struct {
	room *Room
	ln   net.Listener
	srv  *http.Server
	page *template.Template
	// token lets the instructor into /room (web_room.go).
	token string

	mu     sync.Mutex
	byAddr map[string]int
}

// listenWeb listens at cfg.Web ("" = no web door: nil).
func (r *Room) listenWeb() (*webDoor, error) {
	if r.cfg.Web == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", r.cfg.Web)
	if err != nil {
		return nil, badinput.Errorf("--web %s: %w; give another HOST:PORT (port 0 takes a free one)", r.cfg.Web, err)
	}
	page, err := template.ParseFS(webAssets, "webassets/index.html")
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("workshop: web page: %w", err)
	}
	d := &webDoor{room: r, ln: ln, page: page, byAddr: map[string]int{}, token: newRoomToken()}
	assets, _ := fs.Sub(webAssets, "webassets")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", d.index)
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	mux.HandleFunc("GET /join", d.join)
	d.roomRoutes(mux)
	d.srv = deadline.Defaults().Server(secured(mux))
	return d, nil
}

// WebAddr is where the room's web page is served ("" without one).
func (r *Room) WebAddr() string {
	if r.web == nil {
		return ""
	}
	return r.web.ln.Addr().String()
}

// serve serves the page until close.
func (d *webDoor) serve() {
	if d == nil {
		return
	}
	go func() { _ = d.srv.Serve(d.ln) }()
}

// close stops the page; the WebSockets end with their programs.
func (d *webDoor) close() error {
	if d == nil {
		return nil
	}
	if err := d.srv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// secured sets the security headers on every answer.
func secured(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		for k, v := range webSecurityHeaders {
			w.Header().Set(k, v)
		}
		h.ServeHTTP(w, req)
	})
}

// index is the page: a name (and the room's password when it has one),
// then the terminal.
func (d *webDoor) index(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = d.page.Execute(w, struct{ Password, Anonymous bool }{d.room.cfg.Password != "", d.room.cfg.Anonymous})
}

// clientAddr is the address a WebSocket counts against: the peer's, or
// behind a proxy of --web-trust-proxy the one its X-Forwarded-For names,
// read from the right (the entry the nearest proxy added) past the
// trusted proxies' own; what a client wrote further left is not read.
func (d *webDoor) clientAddr(req *http.Request) string {
	addr, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		addr = req.RemoteAddr
	}
	trusted := func(a string) bool {
		ip := net.ParseIP(a)
		for _, n := range d.room.cfg.trustedProxies {
			if ip != nil && n.Contains(ip) {
				return true
			}
		}
		return false
	}
	if !trusted(addr) {
		return addr
	}
	var hops []string
	for _, h := range req.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(h, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		if net.ParseIP(hop) == nil {
			break // not an address: the proxy's header is not one we read
		}
		if !trusted(hop) {
			return hop
		}
		addr = hop
	}
	return addr
}

// hold counts a connection from addr; false when it has webPerAddress.
func (d *webDoor) hold(addr string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.byAddr[addr] >= d.room.cfg.WebPerAddress {
		return false
	}
	d.byAddr[addr]++
	return true
}

func (d *webDoor) release(addr string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.byAddr[addr]--; d.byAddr[addr] <= 0 {
		delete(d.byAddr, addr)
	}
}

// join is one learner's WebSocket: their hello, then their program until
// they leave, close the page, or send nothing for WebIdle.
func (d *webDoor) join(w http.ResponseWriter, req *http.Request) {
	addr := d.clientAddr(req)
	if !d.hold(addr) {
		http.Error(w, "too many connections from your address", http.StatusTooManyRequests)
		return
	}
	defer d.release(addr)
	// The server's read and write deadlines are for requests; a session
	// lasts a lesson, its idle time bounded by WebIdle below.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	// Accept's default checks Origin: a page of this host only.
	c, err := websocket.Accept(w, req, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(64 << 10)
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	refuse := func(why string) {
		b, _ := json.Marshal(webRefusal{Error: why})
		wctx, wcancel := context.WithTimeout(ctx, webWriteWithin)
		defer wcancel()
		_ = c.Write(wctx, websocket.MessageText, b)
		_ = c.Close(websocket.StatusPolicyViolation, why)
	}
	hctx, hcancel := context.WithTimeout(ctx, webHelloWithin)
	typ, b, err := c.Read(hctx)
	hcancel()
	var h webHello
	if err != nil || typ != websocket.MessageText || json.Unmarshal(b, &h) != nil {
		return
	}
	r := d.room
	if pw := r.cfg.Password; pw != "" && subtle.ConstantTimeCompare([]byte(h.Password), []byte(pw)) != 1 {
		refuse("password")
		return
	}
	if learnerName(h.Name) == "" && !r.cfg.Anonymous {
		refuse("name")
		return
	}
	lang := r.cfg.Lang
	if l, err := lessons.ParseLang(h.Lang); err == nil {
		lang = l
	}
	words := wordsFor(lang)
	in, keys := io.Pipe()
	defer in.Close()
	windows := make(chan ssh.Window)
	go d.read(ctx, cancel, c, keys, windows)
	env := []string{"TERM=xterm-256color", "COLORTERM=truecolor", "LANG=" + lang}
	out := webOutput{ctx: ctx, c: c}
	opts := []tea.ProgramOption{tea.WithInput(in), tea.WithOutput(out), tea.WithEnvironment(env),
		tea.WithColorProfile(colorprofile.TrueColor), tea.WithWindowSize(clampSize(h.Cols, h.Rows))}
	hangUp := func(ok bool) {
		if ok {
			_ = c.Close(websocket.StatusNormalClosure, "")
		} else {
			_ = c.Close(websocket.StatusPolicyViolation, "refused")
		}
	}
	r.enter(door{kind: "web", user: h.Name, ctx: ctx, out: out, opts: opts, windows: windows, hangUp: hangUp}, lang, words)
}

// read passes the page's keys to the program and its sizes to windows,
// until the page goes or sends nothing for WebIdle; then it ends the
// session.
func (d *webDoor) read(ctx context.Context, cancel context.CancelFunc, c *websocket.Conn, keys *io.PipeWriter, windows chan<- ssh.Window) {
	defer cancel()
	idle := d.room.cfg.WebIdle
	for {
		rctx, rcancel := context.WithTimeout(ctx, idle)
		typ, b, err := c.Read(rctx)
		rcancel()
		if err != nil {
			_ = keys.CloseWithError(err)
			return
		}
		if typ == websocket.MessageBinary {
			if _, err := keys.Write(b); err != nil {
				return
			}
			continue
		}
		var s webSize
		if json.Unmarshal(b, &s) != nil {
			continue
		}
		cols, rows := clampSize(s.Cols, s.Rows)
		select {
		case windows <- ssh.Window{Width: cols, Height: rows}:
		case <-ctx.Done():
			return
		}
	}
}

// clampSize keeps a page's terminal size to what a screen can be.
func clampSize(cols, rows int) (int, int) {
	return min(max(cols, 1), 1000), min(max(rows, 1), 500)
}

// webOutput is the program's output: one binary message per write, each
// \n sent as \r\n as a terminal's pty does (ONLCR; the SSH door's
// emulated pty too): the renderer counts on it.
type webOutput struct {
	ctx context.Context
	c   *websocket.Conn
}

func (o webOutput) Write(p []byte) (int, error) {
	ctx, cancel := context.WithTimeout(o.ctx, webWriteWithin)
	defer cancel()
	if err := o.c.Write(ctx, websocket.MessageBinary, bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}
