package cast

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/term"
)

// Recorder writes an asciicast v2 recording
// (https://docs.asciinema.org/manual/asciicast/v2/) of everything written
// to the terminal: a JSON header line, then one [time, "o", text] event per
// write and [time, "r", "WxH"] per resize, times in seconds since the start.
//
// It stands in for the terminal as the program's output: writes go to the
// terminal first, then to the file, and Fd/Read pass through, so Bubble Tea
// still sees a TTY (raw mode, window size) through it.
//
// What it records is what a terminal shows, not the bytes written: a
// player has no terminal driver and answers no query. So each line feed is
// recorded as the terminal driver's output processing (onlcr) sends it
// when the program writes on a terminal it did not put in raw mode, as
// Bubble Tea's renderer then expects (Options.MapNewlines); and the
// program's questions to the terminal (mode, colour, keyboard, device
// queries) are left out, their answers never being in the cast anyway.
type Recorder struct {
	mu      sync.Mutex
	out     *os.File
	file    *os.File
	buf     *bufio.Writer
	start   time.Time
	w, h    int
	mapNL   bool
	partial []byte // the start of an escape sequence or UTF-8 character cut by a write
	// pending is the latest output, recorded at pendingAt, kept until a
	// write comes more than coalesce after it: writes that close together
	// are one event (the last frame's exit and play's summary, 0.2 ms
	// apart: svg-term showed the blank screen between them for 0.6 s).
	pending   []byte
	pendingAt time.Duration
	coalesce  time.Duration
	err       error
}

// coalesceWrites is how close writes are to be recorded as one event: far
// below a frame (33 ms at 30 frames a second).
const coalesceWrites = 5 * time.Millisecond

// Options say what the recording describes.
type Options struct {
	// W, H is the size recorded when out is not a terminal (80×24 if 0).
	W, H int
	// Term is the terminal type the program draws for, recorded as TERM
	// ("" = $TERM, else xterm-256color).
	Term string
	// MapNewlines records each "\n" as "\r\n": the program's input is no
	// terminal in raw mode, so its renderer counts on the driver's onlcr.
	MapNewlines bool
}

// castHeader is the asciicast v2 header line.
type castHeader struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp"`
	Env       map[string]string `json:"env"`
}

// Start creates path and writes the header, sized as out is now (o.W×o.H
// when out is not a terminal).
func Start(path string, out *os.File, now time.Time, o Options) (*Recorder, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	w, h := o.W, o.H
	if w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	if term.IsTerminal(out.Fd()) {
		if tw, th, err := term.GetSize(out.Fd()); err == nil && tw > 0 && th > 0 {
			w, h = tw, th
		}
	}
	r := &Recorder{out: out, file: f, buf: bufio.NewWriter(f), start: now, w: w, h: h, mapNL: o.MapNewlines, coalesce: coalesceWrites}
	env := map[string]string{"TERM": o.Term, "SHELL": os.Getenv("SHELL")}
	if env["TERM"] == "" {
		env["TERM"] = os.Getenv("TERM")
	}
	if env["TERM"] == "" {
		env["TERM"] = "xterm-256color"
	}
	b, err := json.Marshal(castHeader{Version: 2, Width: w, Height: h, Timestamp: now.Unix(), Env: env})
	if err == nil {
		_, err = r.buf.Write(append(b, '\n'))
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("record: %w", err)
	}
	return r, nil
}

// event appends one event line, at seconds since the start; the caller
// holds mu.
func (r *Recorder) event(at time.Duration, kind, data string) {
	if r.err != nil {
		return
	}
	b, err := json.Marshal([]any{json.Number(fmt.Sprintf("%.6f", at.Seconds())), kind, data})
	if err == nil {
		_, err = r.buf.Write(append(b, '\n'))
	}
	r.err = err
}

// Write writes p to the terminal and records what the terminal shows of
// it: whole UTF-8 characters and escape sequences (one cut at the end of
// a write is kept for the next), without the queries, line feeds as the
// driver sends them.
func (r *Recorder) Write(p []byte) (int, error) {
	n, err := r.out.Write(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	data := append(r.partial, p[:n]...)
	shown, rest := screenBytes(data, r.mapNL)
	r.partial = append([]byte(nil), rest...)
	if len(shown) > 0 {
		at := time.Since(r.start)
		if r.pending != nil && at-r.pendingAt > r.coalesce {
			r.flush()
		}
		if r.pending == nil {
			r.pendingAt = at
		}
		r.pending = append(r.pending, shown...)
	}
	return n, err
}

// flush records the pending output; the caller holds mu.
func (r *Recorder) flush() {
	if r.pending != nil {
		r.event(r.pendingAt, "o", string(r.pending))
		r.pending = nil
	}
}

// screenBytes is what of data a terminal shows (queries left out, "\n" as
// "\r\n" if mapNL), and the end of data cut inside an escape sequence or a
// UTF-8 character, to be completed by the next write.
func screenBytes(data []byte, mapNL bool) (shown, rest []byte) {
	shown = make([]byte, 0, len(data))
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == 0x1b:
			n := escapeLen(data[i:])
			if n == 0 {
				return shown, data[i:] // cut: the rest comes with the next write
			}
			if seq := data[i : i+n]; !isQuery(seq) {
				shown = append(shown, seq...)
			}
			i += n
		case c == '\n' && mapNL:
			shown = append(shown, '\r', '\n')
			i++
		case c < utf8.RuneSelf:
			shown = append(shown, c)
			i++
		default:
			if !utf8.FullRune(data[i:]) {
				return shown, data[i:]
			}
			_, n := utf8.DecodeRune(data[i:])
			shown = append(shown, data[i:i+n]...)
			i += n
		}
	}
	return shown, nil
}

// escapeLen is the length of the escape sequence b starts with, 0 if b
// ends before it does. CSI: parameters, intermediates, a final byte; OSC,
// DCS, APC, PM, SOS: up to BEL or ST; otherwise ESC, intermediates, final.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				return i + 1
			}
			if b[i] < 0x20 || b[i] > 0x3f { // not a parameter nor an intermediate: not CSI
				return i
			}
		}
		return 0
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(b); i++ {
			if b[i] == 0x07 && b[1] == ']' {
				return i + 1
			}
			if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
			if b[i] == 0x1b && i+1 == len(b) {
				return 0
			}
		}
		return 0
	}
	for i := 1; i < len(b); i++ {
		if b[i] < 0x20 || b[i] > 0x2f {
			return i + 1
		}
	}
	return 0
}

// isQuery says whether an escape sequence asks the terminal something:
// DECRQM (CSI ? n $ p), device attributes (CSI c, > c, = c), XTVERSION
// (CSI > q), device status (CSI n), the window reports of XTWINOPS
// (CSI 11…21 t), the kitty keyboard flags (CSI ? u), modifyOtherKeys
// (CSI ? m), a colour (OSC 4/10/11/12… ending in ?), DCS queries
// (XTGETTCAP +q, DECRQSS $q).
func isQuery(seq []byte) bool {
	s := string(seq)
	switch {
	case strings.HasPrefix(s, "\x1b["):
		body := s[2 : len(s)-1]
		final := s[len(s)-1]
		prefix := byte(0)
		if body != "" && strings.IndexByte("?>=<", body[0]) >= 0 {
			prefix, body = body[0], body[1:]
		}
		switch final {
		case 'p':
			return strings.HasSuffix(body, "$")
		case 'c':
			return true
		case 'n':
			return prefix == 0 || prefix == '?'
		case 'q':
			return prefix == '>'
		case 'u', 'm':
			return prefix == '?'
		case 't':
			first, _, _ := strings.Cut(body, ";")
			n, err := strconv.Atoi(first)
			return err == nil && n >= 11 && n <= 21
		}
	case strings.HasPrefix(s, "\x1b]"):
		body := strings.TrimSuffix(strings.TrimSuffix(s[2:], "\x07"), "\x1b\\")
		return strings.HasSuffix(body, ";?")
	case strings.HasPrefix(s, "\x1bP"):
		return strings.HasPrefix(s[2:], "+q") || strings.HasPrefix(s[2:], "$q")
	}
	return false
}

// Resize records a new terminal size (the header has the first).
func (r *Recorder) Resize(w, h int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w == r.w && h == r.h {
		return
	}
	r.w, r.h = w, h
	r.flush()
	r.event(time.Since(r.start), "r", fmt.Sprintf("%dx%d", w, h))
}

// Read, Fd: the terminal's, so the program can use it as its TTY.
func (r *Recorder) Read(p []byte) (int, error) { return r.out.Read(p) }
func (r *Recorder) Fd() uintptr                { return r.out.Fd() }

// Close leaves the terminal open (it is not the program's to close); Finish
// ends the recording.
func (r *Recorder) Close() error { return nil }

// Finish writes what is left and closes the file.
func (r *Recorder) Finish() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.partial) > 0 {
		if r.pending == nil {
			r.pendingAt = time.Since(r.start)
		}
		r.pending = append(r.pending, r.partial...)
		r.partial = nil
	}
	r.flush()
	if err := r.buf.Flush(); err != nil && r.err == nil {
		r.err = err
	}
	if err := r.file.Close(); err != nil && r.err == nil {
		r.err = err
	}
	if r.err != nil {
		return fmt.Errorf("record: %w", r.err)
	}
	return nil
}
