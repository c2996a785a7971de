package main

import (
	"regexp"
	"testing"
	"time"
)

// outboxlab live in a real terminal, twice on one data directory: the
// first posts two payments and quits; its psql command for live_outbox is
// on the terminal once the screen gives it back. The second finds them
// (it says it carries on from 2 payments) instead of starting empty.
func TestLiveKeepsItsPaymentsAndPrintsPsql(t *testing.T) {
	t.Parallel()
	term, dir := startTUI(t, "live-keep-1", "", "live --lang en")
	term.waitFor("the actors running", regexp.MustCompile(`relay-1\s+● running`), 90*time.Second)
	term.keys("p", "p")
	term.waitFor("two payments applied", regexp.MustCompile(`inbox\s+2\s+2[\s\S]*effects\s+2\s+2`), 30*time.Second)
	term.keys("q")
	s := term.waitFor("outboxlab to exit", regexp.MustCompile(`EXITED 0`), 60*time.Second)
	if !regexp.MustCompile(`outboxlab live: psql 'postgres://\S+/live_outbox\?`).MatchString(s) {
		t.Errorf("live left no psql command for live_outbox on the terminal:\n%s", s)
	}
	_, _ = term.tmux("kill-server")

	term, _ = startTUI(t, "live-keep-2", "", "live --lang en --data-dir "+dir)
	term.waitFor("the actors running", regexp.MustCompile(`relay-1\s+● running`), 90*time.Second)
	term.keys("q")
	s = term.waitFor("outboxlab to exit", regexp.MustCompile(`EXITED 0`), 60*time.Second)
	if !regexp.MustCompile(`carrying on from the last run: 2 payments`).MatchString(s) {
		t.Errorf("the second live did not find the first one's payments:\n%s", s)
	}
}
