package cast

import (
	"encoding/json"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { testrun.Exit(m.Run()) }

// The recorder writes the header, then each write as an "o" event with
// whole UTF-8 characters (a character cut between writes is kept for the
// next), and each new size as an "r" event.
func TestRecorderWritesAsciicastV2(t *testing.T) {
	r, term, path := startRecorder(t, Options{W: 100, H: 30})
	r.coalesce = -1 // every write its own event
	check := []byte("✓ ok")
	for _, p := range [][]byte{[]byte("\x1b[?1049hhello "), check[:1], check[1:]} {
		if _, err := r.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	r.Resize(100, 30) // the same size: nothing recorded
	r.Resize(120, 40)
	if err := r.Finish(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var hdr map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &hdr); err != nil || hdr["version"] != 2.0 || hdr["width"] != 100.0 || hdr["height"] != 30.0 {
		t.Fatalf("header %s (%v)", lines[0], err)
	}
	var got []string
	for _, l := range lines[1:] {
		var ev []any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		got = append(got, ev[1].(string)+" "+ev[2].(string))
	}
	want := []string{"o \x1b[?1049hhello ", "o ✓ ok", "r 120x40"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", got, want)
	}
	if out, _ := os.ReadFile(term.Name()); string(out) != "\x1b[?1049hhello ✓ ok" {
		t.Errorf("the terminal got %q", out)
	}
}

// A recording is what the terminal shows: the program's queries to the
// terminal (as Bubble Tea sends them on start) are left out, even cut
// between writes; a line feed is recorded as the driver sends it when the
// program's renderer counts on onlcr; the rest is kept byte for byte.
func TestRecorderRecordsTheScreenNotTheQueries(t *testing.T) {
	r, term, path := startRecorder(t, Options{W: 100, H: 30, Term: "xterm-256color", MapNewlines: true})
	r.coalesce = -1 // every write its own event
	writes := []string{
		"\x1b[?2026$p\x1b[?2027$p\x1b]11;?\x07",                   // DECRQM, the background colour
		"\x1b[>4m\x1b[?1049h\x1b[>4;2m\x1b[>1u\x1b[?u\x1b[c\x1b[", // kitty flags asked; a CSI cut
		"6n\x1b[>0q\x1bP+q544e\x1b\\\x1b[14t\x1b[22;0t\x1b[38;5;141;1mok\x1b[m\nnext\r\n",
	}
	for _, w := range writes {
		if _, err := r.Write([]byte(w)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Finish(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if !strings.Contains(lines[0], `"TERM":"xterm-256color"`) {
		t.Errorf("header %s: want the terminal drawn for", lines[0])
	}
	var got []string
	for _, l := range lines[1:] {
		var ev []any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		got = append(got, ev[2].(string))
	}
	want := []string{"\x1b[>4m\x1b[?1049h\x1b[>4;2m\x1b[>1u", "\x1b[22;0t\x1b[38;5;141;1mok\x1b[m\r\nnext\r\r\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", got, want)
	}
	if out, _ := os.ReadFile(term.Name()); string(out) != strings.Join(writes, "") {
		t.Errorf("the terminal got %q, want every byte written", out)
	}
}

// Writes close together are one event, at the first one's time: a player
// (svg-term) showed the blank screen between play leaving the full screen
// and its summary, written 0.2 ms apart, for 0.6 s. A write a frame later
// is an event of its own.
func TestRecorderJoinsWritesCloseTogether(t *testing.T) {
	r, _, path := startRecorder(t, Options{W: 100, H: 30})
	for _, w := range []string{"frame", "\x1b[?1049l", "summary"} {
		if _, err := r.Write([]byte(w)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(40 * time.Millisecond) // a frame at 30 frames a second
	if _, err := r.Write([]byte("later")); err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var times []float64
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		var ev []any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		got = append(got, ev[2].(string))
		times = append(times, ev[0].(float64))
	}
	if want := []string{"frame\x1b[?1049lsummary", "later"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("events %q, want %q", got, want)
	}
	if times[1]-times[0] < 0.035 {
		t.Errorf("the later write recorded %.3f s after the first, want the 40 ms slept", times[1]-times[0])
	}
}

// startRecorder records, with opts, what a program writes to a terminal
// (a file): the recorder, the terminal and the recording's path.
func startRecorder(t *testing.T, opts Options) (*Recorder, *os.File, string) {
	t.Helper()
	dir := t.TempDir()
	term, err := os.Create(filepath.Join(dir, "terminal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close() })
	path := filepath.Join(dir, "rec.cast")
	r, err := Start(path, term, time.Now(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return r, term, path
}
