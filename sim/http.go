package sim

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/engine"
)

// Answer is what the API said to a request that came over HTTP (its
// ticket, given with SetTicket): the writer's response or error, or Reset
// when the api process died with the request in flight — its client sees
// the connection reset, and cannot know whether the payment committed.
type Answer struct {
	Ticket int
	Resp   engine.PaymentResponse
	Err    error
	Reset  bool
}

// SetTicket makes the next request command the one an HTTP client waits
// on: its answer is kept for TakeAnswers. The session's log keeps the
// command without it: a replay has no client waiting.
func (s *Sim) SetTicket(ticket int) {
	s.httpMu.Lock()
	defer s.httpMu.Unlock()
	s.ticket = ticket
}

func (s *Sim) takeTicket() int {
	s.httpMu.Lock()
	defer s.httpMu.Unlock()
	t := s.ticket
	s.ticket = 0
	return t
}

// TakeAnswers returns the answers given since it was last called.
func (s *Sim) TakeAnswers() []Answer {
	s.httpMu.Lock()
	defer s.httpMu.Unlock()
	out := s.answers
	s.answers = nil
	return out
}

// answerHTTP keeps the answer to an HTTP request. In compare mode both
// pipelines get the request; the outbox's api answers the client (the
// naive writer's answer to the same request is the simulator's to show).
func (p *Pipeline) answerHTTP(ticket int, resp engine.PaymentResponse, err error) {
	if ticket == 0 || p.sim.answering() != p {
		return
	}
	a := Answer{Ticket: ticket, Resp: resp, Err: err}
	if errors.Is(err, engine.ErrCrash) {
		a.Reset, a.Err = true, nil
	}
	p.sim.httpMu.Lock()
	defer p.sim.httpMu.Unlock()
	p.sim.answers = append(p.sim.answers, a)
}

// answering is the pipeline whose api answers HTTP clients: the outbox's
// when it runs, else the naive writer's.
func (s *Sim) answering() *Pipeline {
	if p := s.Pipeline("outbox"); p != nil {
		return p
	}
	return s.Pipeline("naive")
}

// PaymentStatus reads a payment and where each of its events is, from the
// answering pipeline's database at the virtual now (GET /payments/{id}).
func (s *Sim) PaymentStatus(ctx context.Context, id uuid.UUID) (engine.PaymentStatus, error) {
	s.op.Lock()
	defer s.op.Unlock()
	p := s.answering()
	if p == nil {
		return engine.PaymentStatus{}, fmt.Errorf("payment status: no pipeline runs")
	}
	var st engine.PaymentStatus
	err := p.withConn(ctx, func(c *pgx.Conn) error {
		var err error
		st, err = engine.ReadPaymentStatus(ctx, c, id, s.clock.Peek())
		return err
	})
	return st, err
}
