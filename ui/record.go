package ui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/term"
)

// recorder writes an asciicast v2 recording
// (https://docs.asciinema.org/manual/asciicast/v2/) of everything written
// to the terminal: a JSON header line, then one [time, "o", text] event per
// write and [time, "r", "WxH"] per resize, times in seconds since the start.
//
// It stands in for the terminal as the program's output: writes go to the
// terminal first, then to the file, and Fd/Read pass through, so Bubble Tea
// still sees a TTY (raw mode, window size) through it.
type recorder struct {
	mu      sync.Mutex
	out     *os.File
	file    *os.File
	buf     *bufio.Writer
	start   time.Time
	w, h    int
	partial []byte // the start of a UTF-8 sequence cut by a write
	err     error
}

// castHeader is the asciicast v2 header line.
type castHeader struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp"`
	Env       map[string]string `json:"env"`
}

// startRecording creates path and writes the header, sized as out is now
// (w×h when out is not a terminal; 80×24 if those are 0).
func startRecording(path string, out *os.File, now time.Time, w, h int) (*recorder, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	if w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	if term.IsTerminal(out.Fd()) {
		if tw, th, err := term.GetSize(out.Fd()); err == nil && tw > 0 && th > 0 {
			w, h = tw, th
		}
	}
	r := &recorder{out: out, file: f, buf: bufio.NewWriter(f), start: now, w: w, h: h}
	env := map[string]string{"TERM": os.Getenv("TERM"), "SHELL": os.Getenv("SHELL")}
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

// event appends one event line; the caller holds mu.
func (r *recorder) event(kind, data string) {
	if r.err != nil {
		return
	}
	t := time.Since(r.start).Seconds()
	b, err := json.Marshal([]any{json.Number(fmt.Sprintf("%.6f", t)), kind, data})
	if err == nil {
		_, err = r.buf.Write(append(b, '\n'))
	}
	r.err = err
}

// Write writes p to the terminal and records it. Text is recorded whole
// UTF-8 characters at a time: a sequence cut at the end of one write is
// kept for the next.
func (r *recorder) Write(p []byte) (int, error) {
	n, err := r.out.Write(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	data := append(r.partial, p[:n]...)
	cut := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	r.partial = append([]byte(nil), data[cut:]...)
	if cut > 0 {
		r.event("o", string(data[:cut]))
	}
	return n, err
}

// Resize records a new terminal size (the header has the first).
func (r *recorder) Resize(w, h int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w == r.w && h == r.h {
		return
	}
	r.w, r.h = w, h
	r.event("r", fmt.Sprintf("%dx%d", w, h))
}

// Read, Fd: the terminal's, so the program can use it as its TTY.
func (r *recorder) Read(p []byte) (int, error) { return r.out.Read(p) }
func (r *recorder) Fd() uintptr                { return r.out.Fd() }

// Close leaves the terminal open (it is not the program's to close); Finish
// ends the recording.
func (r *recorder) Close() error { return nil }

// Finish writes what is left and closes the file.
func (r *recorder) Finish() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.partial) > 0 {
		r.event("o", string(r.partial))
		r.partial = nil
	}
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
