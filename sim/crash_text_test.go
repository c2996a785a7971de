package sim

import (
	"strings"
	"testing"
)

// A crash at a checkpoint reached after the actor's COMMIT says so: its
// connection closed with nothing open, so "closed without COMMIT" would
// contradict the committed work the same sentence goes on to name.
func TestACrashAfterCommitSaysTheCommitHappened(t *testing.T) {
	t.Parallel()
	sc := parseScene(t, "after-commit", `title: crashes after a COMMIT
teaches: what a crash after a COMMIT leaves
mode: compare
naive: commit-then-publish
crash naive at naive.committed
crash api at api.committed
crash accounting at consumer.committed
request
drain
expect naive payments == 1
`)
	s := newSim(t, sc)
	doAll(t, s, sc.Steps)
	crashes := map[string]string{}
	for _, e := range s.Timeline(0) {
		if e.Kind == "crash" {
			crashes[e.Pipeline+"/"+e.Actor] = e.Explain
		}
	}
	for _, who := range []string{"naive/naive", "outbox/api", "outbox/accounting"} {
		said, ok := crashes[who]
		if !ok {
			t.Errorf("%s never crashed: %v", who, crashes)
			continue
		}
		if strings.Contains(said, "without COMMIT") || !strings.Contains(said, "after its COMMIT") {
			t.Errorf("%s: %q", who, said)
		}
	}
}
