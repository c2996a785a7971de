package httpapi

import (
	"net"
	"net/http"
)

// resetConnection drops the client's connection with no response, as the
// kernel does for a process that died: the socket is closed with SO_LINGER 0,
// so the client reads a TCP reset ("connection reset by peer"), never a
// status. Where the connection cannot be hijacked (HTTP/2) the server's own
// abort does the same for the stream.
func resetConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}
