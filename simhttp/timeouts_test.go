package simhttp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/httpapi"
	"github.com/outboxlab/outboxlab/httpapi/deadline"
	"github.com/outboxlab/outboxlab/sim"
)

// unreached is a backend no request in these tests may reach.
type unreached struct{ t *testing.T }

func (u unreached) CreatePayment(context.Context, engine.PaymentRequest) (engine.PaymentResponse, error) {
	u.t.Error("a request reached the backend")
	return engine.PaymentResponse{}, errors.New("unreached")
}

func (u unreached) Payment(context.Context, uuid.UUID) (engine.PaymentStatus, error) {
	u.t.Error("a request reached the backend")
	return engine.PaymentStatus{}, errors.New("unreached")
}

// listen serves an edge on loopback the two ways outboxlab does: a
// deployment's handler (serve --broker, live) or a simulation's (serve,
// the TUI), with the deadlines d (zero: outboxlab's own).
func listen(t *testing.T, simulation bool, d deadline.Deadlines) *Server {
	t.Helper()
	e, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.Listener.Deadlines = d
	t.Cleanup(e.Close)
	if simulation {
		e.Serve(func(Request) { t.Error("a request reached the driver") }, nil)
	} else {
		e.ServeBackend(unreached{t})
	}
	return e
}

// closedAfter sends raw over a new connection and reads until the server
// closes it, at most limit: how long it kept the connection, and what it
// answered.
func closedAfter(t *testing.T, addr, raw string, limit time.Duration) (time.Duration, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(limit))
	got, err := io.ReadAll(c)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("after %s the connection is still open (%v); it answered %q", took.Round(time.Millisecond), err, got)
	}
	return took, string(got)
}

// A client that promises a 100-byte body and sends 10 has its connection
// closed at ReadTimeout, with a 408 problem; one that never finishes its
// headers at ReadHeaderTimeout. With ReadHeaderTimeout alone the short
// body would hold the connection for as long as the client liked (the
// limit here ends it), on either kind of edge.
//
// The deadlines are shorter than outboxlab's (TestEveryEdgeServerHasDeadlines
// holds an edge to those), so that waiting them out takes a second, not
// fifteen: what is tested is that the server cuts at its deadline and says
// so.
func TestSlowClientsAreCut(t *testing.T) {
	t.Parallel()
	short := deadline.Deadlines{ReadHeader: 500 * time.Millisecond, Read: time.Second, Write: deadline.WriteTimeout, Idle: deadline.IdleTimeout}
	for _, simulation := range []bool{false, true} {
		name := map[bool]string{false: "deployment", true: "simulation"}[simulation]
		t.Run(name+"/short body", func(t *testing.T) {
			t.Parallel()
			e := listen(t, simulation, short)
			took, got := closedAfter(t, e.Addr, "POST /payments HTTP/1.1\r\nHost: "+e.Addr+
				"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"client_i", short.Read+10*time.Second)
			t.Logf("a body 90 bytes short: closed after %s", took.Round(time.Millisecond))
			if took > short.Read+time.Second {
				t.Errorf("closed after %s, want within ReadTimeout (%s)", took, short.Read)
			}
			resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(got)), nil)
			if err != nil {
				t.Fatalf("answer %q: %v", got, err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusRequestTimeout || resp.Header.Get("Content-Type") != "application/problem+json" ||
				!strings.Contains(string(body), "within "+short.Read.String()+": 10 of the 100 bytes") {
				t.Errorf("answer %s %s: %s, want 408 problem+json saying how much came", resp.Status, resp.Header.Get("Content-Type"), body)
			}
		})
		t.Run(name+"/headers never end", func(t *testing.T) {
			t.Parallel()
			e := listen(t, simulation, short)
			took, _ := closedAfter(t, e.Addr, "POST /payments HTTP/1.1\r\nHost: "+e.Addr+"\r\n", short.ReadHeader+10*time.Second)
			t.Logf("headers never ended: closed after %s", took.Round(time.Millisecond))
			if took > short.ReadHeader+time.Second {
				t.Errorf("closed after %s, want within ReadHeaderTimeout (%s)", took, short.ReadHeader)
			}
		})
	}
}

// Every server an edge runs has the four deadlines, outboxlab's own unless
// it was given others.
func TestEveryEdgeServerHasDeadlines(t *testing.T) {
	want := deadline.Defaults()
	for _, simulation := range []bool{false, true} {
		s := listen(t, simulation, deadline.Deadlines{}).Server()
		if s.ReadHeaderTimeout <= 0 || s.ReadTimeout <= 0 || s.WriteTimeout <= 0 || s.IdleTimeout <= 0 {
			t.Errorf("simulation %v: ReadHeaderTimeout %s, ReadTimeout %s, WriteTimeout %s, IdleTimeout %s: want each set",
				simulation, s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout)
		}
		if got := deadline.Of(s); got != want {
			t.Errorf("simulation %v: deadlines %+v, want outboxlab's %+v", simulation, got, want)
		}
	}
}

// A simulation's POST /payments waits for the driver as long as it takes
// (under the TUI, for the learner to move the api): the server's
// WriteTimeout does not cut it. Its handler on a server whose WriteTimeout
// is 100 ms answers after 400 ms; without the lift the client's connection
// is cut.
func TestASimulationsPaymentOutwaitsWriteTimeout(t *testing.T) {
	t.Parallel()
	e, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	e.send = func(r Request) {
		time.AfterFunc(400*time.Millisecond, func() {
			e.Answer(simAnswer(r.Ticket))
		})
	}
	for _, tc := range []struct {
		name string
		h    http.Handler
		ok   bool
	}{
		{"lifted", waitsForTheDriver(httpapi.NewHandler(e)), true},
		{"not lifted", httpapi.NewHandler(e), false},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		d := deadline.Defaults()
		d.Write = 100 * time.Millisecond
		srv := d.Server(tc.h)
		go func() { _ = srv.Serve(ln) }()
		resp, err := http.Post("http://"+ln.Addr().String()+"/payments", "application/json",
			strings.NewReader(`{"client_id":"acme","amount_cents":1250,"currency":"EUR"}`))
		if tc.ok && (err != nil || resp.StatusCode != http.StatusCreated) {
			t.Errorf("%s: %v %v, want 201 after the driver's 400 ms", tc.name, resp, err)
		}
		if !tc.ok && err == nil {
			t.Errorf("%s: %s, want the connection cut at WriteTimeout (else this test proves nothing)", tc.name, resp.Status)
		}
		if resp != nil {
			resp.Body.Close()
		}
		_ = srv.Close()
	}
}

// simAnswer is the api's answer to ticket: a payment created.
func simAnswer(ticket int) sim.Answer {
	return sim.Answer{Ticket: ticket, Resp: engine.PaymentResponse{StatusCode: engine.StatusCreated, PaymentID: uuid.New(), EventID: uuid.New(),
		ClientID: "acme", AmountCents: 1250, Currency: "EUR", CreatedAt: time.Now().UTC()}}
}
