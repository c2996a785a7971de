package deadline

import (
	"net/http"
	"time"
)

// The deadlines of every HTTP server outboxlab runs (Defaults): the API
// under the simulator, serve and live, and the provider's. Without
// them a client that sends fewer bytes than its Content-Length, or opens a
// connection and sends nothing, holds a connection and a goroutine for as
// long as it likes.
const (
	// ReadHeaderTimeout bounds the request line and headers: curl, a
	// browser and every load tool send them in their first packet, so 5 s
	// is ample on any network a workshop sits on, and a client that sends
	// nothing is dropped quickly.
	ReadHeaderTimeout = 5 * time.Second
	// ReadTimeout bounds the whole request, body included. A payment's
	// body is under 100 bytes and at most MaxBodyBytes (64 KiB) are read:
	// 64 KiB in 10 s needs 52 kbit/s, below any network in use. A load
	// test sends its body with its headers and is never near it. A body
	// that has not arrived by then is answered 408 and the connection
	// closed.
	ReadTimeout = 10 * time.Second
	// WriteTimeout bounds a request from the end of its headers to the end
	// of its answer. It is a backstop above the handlers' own deadlines —
	// the body's ReadTimeout plus the writer's 30 s (httpapi.DBConfig.WriteTimeout)
	// — so their 408 or 504 is written before it ends the connection. A
	// simulation's POST /payments lifts it: its answer waits for the
	// learner to move the api (see simhttp).
	WriteTimeout = 60 * time.Second
	// IdleTimeout is how long a kept-alive connection waits for its next
	// request. Above the 90 s after which Go's http.Transport (and most
	// clients) drop an idle connection, so the client closes first and
	// never sends a request on a connection the server is closing; a load
	// test's connections live as long as it runs.
	IdleTimeout = 120 * time.Second
)

// Deadlines are a server's four timeouts, as http.Server names them.
type Deadlines struct {
	ReadHeader, Read, Write, Idle time.Duration
}

// Defaults are the deadlines above, every outboxlab server's.
func Defaults() Deadlines {
	return Deadlines{ReadHeader: ReadHeaderTimeout, Read: ReadTimeout, Write: WriteTimeout, Idle: IdleTimeout}
}

// Of are the deadlines s runs with.
func Of(s *http.Server) Deadlines {
	return Deadlines{ReadHeader: s.ReadHeaderTimeout, Read: s.ReadTimeout, Write: s.WriteTimeout, Idle: s.IdleTimeout}
}

// Server is an http.Server for h with these deadlines; the zero Deadlines
// are Defaults.
func (d Deadlines) Server(h http.Handler) *http.Server {
	if d == (Deadlines{}) {
		d = Defaults()
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: d.ReadHeader,
		ReadTimeout:       d.Read,
		WriteTimeout:      d.Write,
		IdleTimeout:       d.Idle,
	}
}
