package story

import (
	"slices"
	"testing"
)

// With writers: 2 each request is drawn to the API process that took it:
// commit-order's second payment goes client → api-2, and api-2 stands with
// the writers, before PostgreSQL.
func TestSecondWriterStory(t *testing.T) {
	s := build(t, "commit-order", "", "", "2")
	want := []string{Client, "api-2", PostgreSQL}
	if len(s.Participants) < 3 || !slices.Equal(s.Participants[:3], want) {
		t.Errorf("participants %v, want them to begin %v", s.Participants, want)
	}
	if slices.Contains(s.Participants, "api") {
		t.Errorf("api is a participant of api-2's message: %v", s.Participants)
	}
	if n := steps(s, Request, Client, "api-2"); n != 1 {
		t.Errorf("%d requests from the client to api-2, want 1: %+v", n, s.Events)
	}
}
