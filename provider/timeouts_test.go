package provider_test

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/httpapi/deadline"
	"github.com/outboxlab/outboxlab/provider"
)

// The provider's server has the API's deadlines: a charge whose body is
// 90 bytes short of its Content-Length has its connection closed at
// ReadTimeout: with ReadHeaderTimeout alone the connection would stay open
// for as long as the client liked. The cut is waited out on a
// server given a ReadTimeout of a second (StartWith), not ten; the one
// Start runs is held to the API's own.
func TestProviderCutsAShortBody(t *testing.T) {
	t.Parallel()
	srv, pool := setup(t)
	if got := deadline.Of(srv.HTTPServer()); got != deadline.Defaults() {
		t.Errorf("the provider's deadlines %+v, want the API's %+v", got, deadline.Defaults())
	}
	short := deadline.Defaults()
	short.Read = time.Second
	cut, err := provider.StartWith(pool, nil, short)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cut.Close() })
	addr := strings.TrimPrefix(cut.URL(), "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "POST /charges HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"payment_"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(short.Read + 10*time.Second))
	got, err := io.ReadAll(c)
	took := time.Since(start)
	t.Logf("closed after %s", took.Round(time.Millisecond))
	if err != nil || took > short.Read+time.Second {
		t.Errorf("after %s: %v (answered %q), want the connection closed within ReadTimeout (%s)", took, err, got, short.Read)
	}
}
