package engine

import (
	"context"
	_ "embed"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// The floor's own statements (testdata/floor): the producer's and the
// consumer's row writes, each in one statement; its relay runs the engine's
// claim_batch and mark_published, already one statement each.
var (
	//go:embed testdata/floor/produce.sql
	floorProduce string
	//go:embed testdata/floor/consume.sql
	floorConsume string
)

// floorBatch is one claimed batch on its way from the floor's relay to its
// consumer: the rows' ids and payloads, as a broker would carry them.
type floorBatch struct {
	ids      []uuid.UUID
	payloads []string
}

// floorEndToEnd is BenchmarkEndToEnd's designed SQL floor: the same row
// writes as endToEnd for n payments (a payment and its outbox row, a lease,
// a mark, an inbox row, a position and a ledger entry each), in the same
// shape (two
// producers committing 500 at a time, one relay claiming and marking 500 at a
// time with synchronous_commit off as the relay does, a consumer committing a
// batch's inbox rows and entries together), with no broker and no Go work
// but handing the claimed rows to the consumer: four statements per batch of
// 500, each its own transaction. It returns the time from the producers'
// start to the last entry's commit; x-floor is the engine's rate over it.
func floorEndToEnd(b *testing.B, bd *bundle, n int) time.Duration {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const producers, perTx = 2, 500
	conns := make([]*pgx.Conn, producers+2)
	for i := range conns {
		c, err := bd.connect(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close(context.Background())
		conns[i] = c
	}
	relayConn, consumerConn := conns[producers], conns[producers+1]
	if _, err := relayConn.Exec(ctx, "SET synchronous_commit = off"); err != nil {
		b.Fatal(err)
	}
	// Prepared once, untimed: what a pgx connection's statement cache does.
	for _, p := range []struct {
		c   *pgx.Conn
		sql string
	}{{relayConn, stmtClaimBatch.SQL}, {relayConn, stmtMarkPublished.SQL}, {consumerConn, floorConsume}, {conns[0], floorProduce}, {conns[1], floorProduce}} {
		if _, err := p.c.Prepare(ctx, p.sql, p.sql); err != nil {
			b.Fatal(err)
		}
	}
	batches := make(chan floorBatch, 64)
	errs := make(chan error, producers+2)
	fail := func(err error) { errs <- err; cancel() } // the others stop at their next statement
	var wg sync.WaitGroup
	start := time.Now()
	for p := range producers {
		wg.Go(func() {
			share := n / producers
			if p == 0 {
				share += n % producers
			}
			for done := 0; done < share; done += perTx {
				if _, err := conns[p].Exec(ctx, floorProduce, time.Now(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", min(perTx, share-done)); err != nil {
					fail(err)
					return
				}
			}
		})
	}
	wg.Go(func() { // the relay
		defer close(batches)
		worker := uuid.Must(uuid.NewV7())
		for claimed := 0; claimed < n; {
			now := time.Now()
			rows, err := relayConn.Query(ctx, stmtClaimBatch.SQL, now, perTx, worker, now.Add(30*time.Second))
			if err != nil {
				fail(err)
				return
			}
			var fb floorBatch
			var id uuid.UUID
			var payload string
			// claim_batch's RETURNING as a relay reads it; the consumer needs
			// the id (first) and the payload (seventh).
			dest := []any{&id, new(string), new(string), new(int64), new(string), new(int32), &payload,
				new(*string), new(time.Time), new(int32), new(bool)}
			_, err = pgx.ForEachRow(rows, dest, func() error {
				fb.ids, fb.payloads = append(fb.ids, id), append(fb.payloads, payload)
				return nil
			})
			if err != nil {
				fail(err)
				return
			}
			if len(fb.ids) == 0 {
				time.Sleep(time.Millisecond) // the producers are behind
				continue
			}
			if _, err := relayConn.Exec(ctx, stmtMarkPublished.SQL, fb.ids, worker, time.Now()); err != nil {
				fail(err)
				return
			}
			claimed += len(fb.ids)
			select {
			case batches <- fb:
			case <-ctx.Done(): // the consumer failed
				return
			}
		}
	})
	consumed := make(chan time.Duration, 1)
	wg.Go(func() {
		done := 0
		for fb := range batches {
			tag, err := consumerConn.Exec(ctx, floorConsume, "accounting", time.Now(), fb.ids, fb.payloads)
			if err != nil {
				fail(err)
				return
			}
			done += int(tag.RowsAffected())
		}
		if done != n {
			fail(errors.New("the floor's consumer wrote fewer ledger entries than payments"))
			return
		}
		consumed <- time.Since(start)
	})
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatalf("floor: %v", err)
	default:
	}
	return <-consumed
}
