package jetstream

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/outboxlab/outboxlab/engine/jetstream/jstest"
)

// A server on a port is a broker at a URL: a client dials it once it is
// started, not while it is stopped, and again once it is started on the
// same port; an embedded server has no URL.
func TestAServerOnAPortAnswersAtItsURL(t *testing.T) {
	t.Parallel()
	if u := (&Server{dir: t.TempDir()}).URL(); u != "" {
		t.Errorf("an embedded server's URL: %q, want none", u)
	}
	s := ServerOnPort(t.TempDir(), jstest.FreePort(t))
	t.Cleanup(s.Stop)
	dial := func() error {
		nc, err := nats.Connect(s.URL(), nats.Timeout(time.Second))
		if err == nil {
			nc.Close()
		}
		return err
	}
	if err := dial(); err == nil {
		t.Fatal("dialled a server not started")
	}
	for range 2 {
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		if err := dial(); err != nil {
			t.Fatalf("dial %s once started: %v", s.URL(), err)
		}
		s.Stop()
		if err := dial(); err == nil {
			t.Fatal("dialled a stopped server")
		}
	}
}
