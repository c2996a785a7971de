package jstest

import (
	"net"
	"strconv"
	"testing"
)

// A port FreePort gives is free and, where the system says its ephemeral
// range, below it: no connection a test opens meanwhile takes it as its
// source port.
func TestFreePortIsBelowTheEphemeralPorts(t *testing.T) {
	lo := ephemeralLow()
	for range 20 {
		p := FreePort(t)
		if lo > lowestPick && (p < lowestPick || p >= lo) {
			t.Fatalf("port %d: want one in [%d, %d)", p, lowestPick, lo)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("port %d is not free: %v", p, err)
		}
		_ = l.Close()
	}
}
