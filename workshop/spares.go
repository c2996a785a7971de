package workshop

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/pg"
)

// The room keeps its learners' databases made before they join (pg's
// spare databases): two for each seat free, one per pipeline. A learner
// who joins takes two by a rename, and their simulator starts on them
// with nothing to clone; a class that arrives at once then waits for
// PostgreSQL to rename eighty databases, not to copy them. The spares are
// made while nobody is joining, one at a time with a pause between (the
// learners already in are pressing keys), and kept across the room's
// restarts: a spare is the template's clone at this build's schema, and
// pg.Spares drops any other.

// sparePrefix names the room's spare databases. No learner's database
// starts with it: theirs are ws_<id>_<kind>.
const sparePrefix = "outboxlab_spare_"

// spareCalm is how long after the last learner joined the room waits
// before it makes spares again, and sparePause the pause between two.
const (
	spareCalm  = 2 * time.Second
	sparePause = 100 * time.Millisecond
)

// spareDatabases is the room's stock of spares.
type spareDatabases struct {
	mu       sync.Mutex
	names    []string  // ready to take
	lastJoin time.Time // when a learner last took some
	wake     chan struct{}
	stop     context.CancelFunc
	stopped  chan struct{}
}

// openSpares finds the spares an earlier room on this server left (this
// build's; pg.Spares drops the others).
func (r *Room) openSpares(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, r.srv.DatabaseURL("postgres"))
	if err != nil {
		return fmt.Errorf("workshop: spare databases: connect: %w", err)
	}
	defer conn.Close(context.Background())
	names, err := r.srv.Spares(ctx, conn, sparePrefix)
	if err != nil {
		return fmt.Errorf("workshop: %w", err)
	}
	r.spares = &spareDatabases{names: names, wake: make(chan struct{}, 1), stopped: make(chan struct{})}
	return nil
}

// spareWant is how many spares the room keeps: two per seat free, up to
// Config.SpareSeats seats.
func (r *Room) spareWant() int {
	seats := r.cfg.SpareSeats
	switch {
	case seats < 0:
		return 0
	case seats == 0 || seats > r.cfg.MaxLearners:
		seats = r.cfg.MaxLearners
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	active := 0
	for _, l := range r.learners {
		if l.active {
			active++
		}
	}
	return 2 * max(min(seats, r.cfg.MaxLearners-active), 0)
}

// fillSpares makes spares until the room stops: up to spareWant, never
// while learners are joining.
func (r *Room) fillSpares(ctx context.Context) {
	s := r.spares
	ctx, s.stop = context.WithCancel(ctx)
	go func() {
		defer close(s.stopped)
		var conn *pgx.Conn
		defer func() {
			if conn != nil {
				conn.Close(context.Background())
			}
		}()
		for {
			s.mu.Lock()
			have, calm := len(s.names), time.Until(s.lastJoin.Add(spareCalm))
			s.mu.Unlock()
			wait := time.Duration(0)
			switch {
			case have >= r.spareWant():
				wait = time.Minute // until a learner leaves (wake)
			case calm > 0:
				wait = calm
			}
			if wait > 0 {
				select {
				case <-ctx.Done():
					return
				case <-s.wake:
				case <-time.After(wait):
				}
				continue
			}
			if conn == nil {
				var err error
				if conn, err = pgx.Connect(ctx, r.srv.DatabaseURL("postgres")); err != nil {
					r.logf("workshop: spare databases: connect: %v", err)
					return
				}
			}
			var b [6]byte
			_, _ = rand.Read(b[:])
			name := sparePrefix + hex.EncodeToString(b[:])
			if err := r.srv.MakeSpare(ctx, conn, name); err != nil {
				if ctx.Err() == nil {
					r.logf("workshop: %v", err)
				}
				return
			}
			s.mu.Lock()
			s.names = append(s.names, name)
			s.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-time.After(sparePause):
			}
		}
	}()
}

// wakeSpares tells the filler a seat came free.
func (r *Room) wakeSpares() {
	if r.spares == nil {
		return
	}
	select {
	case r.spares.wake <- struct{}{}:
	default:
	}
}

// stopSpares ends the filler: a spare half made is dropped by the next
// room (pg.Spares finds it unmarked).
func (r *Room) stopSpares() {
	if r.spares == nil || r.spares.stop == nil {
		return
	}
	r.spares.stop()
	<-r.spares.stopped
}

// takeSpares makes spares the learner's databases (owned by their role),
// on conn, a superuser's; a kind with no spare left is cloned by their
// simulator as it starts.
func (r *Room) takeSpares(ctx context.Context, conn *pgx.Conn, ns pg.Namespace, role string) error {
	s := r.spares
	if s == nil {
		return nil
	}
	s.mu.Lock()
	s.lastJoin = time.Now()
	s.mu.Unlock()
	for _, kind := range pg.PipelineKinds() {
		s.mu.Lock()
		if len(s.names) == 0 {
			s.mu.Unlock()
			return nil
		}
		spare := s.names[len(s.names)-1]
		s.names = s.names[:len(s.names)-1]
		s.mu.Unlock()
		err := r.srv.TakeSpare(ctx, conn, spare, ns.Database(kind), role)
		if errors.Is(err, pg.ErrNameTaken) {
			// Theirs from before, which their simulator empties.
			s.mu.Lock()
			s.names = append(s.names, spare)
			s.mu.Unlock()
			continue
		}
		if err != nil {
			return fmt.Errorf("workshop: %w", err)
		}
	}
	return nil
}
