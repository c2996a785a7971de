package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The recorder writes the header, then each write as an "o" event with
// whole UTF-8 characters (a character cut between writes is kept for the
// next), and each new size as an "r" event.
func TestRecorderWritesAsciicastV2(t *testing.T) {
	dir := t.TempDir()
	term, err := os.Create(filepath.Join(dir, "terminal"))
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	path := filepath.Join(dir, "rec.cast")
	r, err := startRecording(path, term, time.Now(), 100, 30)
	if err != nil {
		t.Fatal(err)
	}
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
