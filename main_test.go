package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func tempDataDir(t *testing.T) string {
	t.Helper()
	// Not t.TempDir: as root the server's account must reach the directory,
	// and t.TempDir's parents are private to root.
	dir, err := os.MkdirTemp("", "outboxlab-main-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestDoctorReportsAndSaysOK(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"doctor", "--data-dir", tempDataDir(t)}, &out, &errb)
	if code != exitOK {
		t.Fatalf("doctor exit %d, stderr:\n%s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if lines[len(lines)-1] != "ok" {
		t.Errorf("last line %q, want ok", lines[len(lines)-1])
	}
	for _, want := range []string{"binaries:", "version:   PostgreSQL ", "data dir:", "listening: 127.0.0.1:", "boot:      cold (initdb)", "boot time:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		say  string
	}{
		{"unknown flag", []string{"doctor", "--bogus"}, exitUsage, "flag provided but not defined: -bogus"},
		{"stray argument", []string{"doctor", "extra"}, exitUsage, `unexpected argument "extra"`},
		{"unknown command", []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{"missing binaries", []string{"doctor", "--pg-bin", "/nonexistent/pg", "--data-dir", tempDataDir(t)}, exitFail, "--pg-bin /nonexistent/pg: no such directory"},
		{"bad database url", []string{"doctor", "--database-url", "mysql://x"}, exitFail, "want postgres://"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(c.args, &out, &errb)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, errb.String())
			}
			if !strings.Contains(errb.String(), c.say) {
				t.Errorf("stderr %q does not say %q", errb.String(), c.say)
			}
		})
	}
}
