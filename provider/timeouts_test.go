package provider_test

import (
	"github.com/outboxlab/outboxlab/httpapi/deadline"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// The provider's server has the API's deadlines: a charge whose body is
// 90 bytes short of its Content-Length has its connection closed at
// ReadTimeout. Before, only ReadHeaderTimeout was set and the connection
// stayed open for as long as the client liked.
func TestProviderCutsAShortBody(t *testing.T) {
	t.Parallel()
	srv, _ := setup(t)
	addr := strings.TrimPrefix(srv.URL(), "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "POST /charges HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"payment_"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(deadline.ReadTimeout + 10*time.Second))
	got, err := io.ReadAll(c)
	took := time.Since(start)
	t.Logf("closed after %s", took.Round(time.Millisecond))
	if err != nil || took > deadline.ReadTimeout+time.Second {
		t.Errorf("after %s: %v (answered %q), want the connection closed within ReadTimeout (%s)", took, err, got, deadline.ReadTimeout)
	}
}
