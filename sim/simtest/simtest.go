package simtest

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

// kept is a parked simulation and what names its databases.
type kept struct {
	s      *sim.Sim
	srv    *pg.Server
	prefix string
}

var (
	pool = pgtest.NewPool(func(k kept) {
		k.s.Close()
		_ = pg.OwnNamespace(k.prefix).DropAll(context.Background(), k.srv)
	})
	prefixes atomic.Int64
)

// take is a simulation of the pool for set and seed, renewed for them when
// renew says so (sim.RunSceneOn renews by itself), or a new one; one that
// fails to renew is discarded.
func take(ctx context.Context, t testing.TB, set scenes.Settings, seed uint64, renew bool) (kept, error) {
	srv := pgtest.Server(t)
	k, ok := pool.Take()
	if !ok {
		k = kept{srv: srv, prefix: fmt.Sprintf("simtest%d_%d", os.Getpid(), prefixes.Add(1))}
		var err error
		k.s, err = sim.New(ctx, sim.Config{Server: srv, Settings: set, Seed: seed, DBPrefix: k.prefix})
		return k, err
	}
	if renew {
		if err := k.s.Renew(ctx, set, seed); err != nil {
			pool.Discard(k)
			return kept{}, err
		}
	}
	return k, nil
}

// give parks k and keeps it for the next test.
func give(k kept) {
	k.s.Park()
	pool.Give(k)
}

// Sim is a simulation for set and seed (0: the settings' own), as sim.New
// builds one, the test's until it ends.
func Sim(t testing.TB, set scenes.Settings, seed uint64) *sim.Sim {
	t.Helper()
	k, err := take(context.Background(), t, set, seed, true)
	if err != nil {
		t.Fatalf("simulation: %v", err)
	}
	t.Cleanup(func() { give(k) })
	return k.s
}

// Run runs sc to its end as sim.RunScene does (opts.DBPrefix aside: the
// pool's simulations have their own) and returns what it came to.
func Run(t testing.TB, sc *scenes.Scene, opts sim.RunOptions) (*sim.Result, error) {
	t.Helper()
	ctx := context.Background()
	set, err := opts.Settings(sc)
	if err != nil {
		return nil, err
	}
	k, err := take(ctx, t, set, opts.Seed, false)
	if err != nil {
		return nil, err
	}
	res, err := sim.RunSceneOn(ctx, k.s, sc, opts)
	if err != nil {
		pool.Discard(k)
		return nil, err
	}
	give(k)
	return res, nil
}
