package story

import "testing"

// relay: cdc: cdc-relay's second payment is streamed from the slot twice
// (the relay was killed after publishing it, before confirming), published
// twice, never claimed; the stream's position is confirmed once, after the
// restart, and each consumer applies it once.
func TestCDCRelayStory(t *testing.T) {
	t.Parallel()
	s := build(t, "cdc-relay", "", "", "2")
	if n := steps(s, Receive, PostgreSQL, "relay-1"); n != 2 {
		t.Errorf("%d receives from the slot, want 2: %+v", n, s.Events)
	}
	if n := steps(s, Publish, "relay-1", Broker); n != 2 {
		t.Errorf("%d publishes, want 2", n)
	}
	if n := steps(s, Claim, "", ""); n != 0 {
		t.Errorf("%d claims by a CDC relay, want none", n)
	}
	if n := steps(s, Confirm, "relay-1", PostgreSQL); n != 1 {
		t.Errorf("%d confirmations, want 1 (the first life died before its own)", n)
	}
	for _, c := range []string{"accounting", "notifications"} {
		if tl := tally(t, s, c); tl.Effects != 1 || tl.Duplicates != 1 {
			t.Errorf("%s: %+v, want one effect and one duplicate ignored", c, tl)
		}
	}
}
