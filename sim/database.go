package sim

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/provider"
)

// database is one pipeline's database, kept by the simulator across its
// resets: its pool (the simulator's own connections) and the actors'
// connections of the run before, put back idle. A reset then empties the
// tables in place, on connections already open, instead of ending every
// session and connecting each actor again: opening a connection (a new
// backend, a SCRAM exchange, cold catalog caches) costs milliseconds of CPU,
// and a run opens a dozen. What the run can see is the same: every table
// empty, identities restarted, every actor on a connection of its own, named
// after it, with no transaction open and its settings as a new session's.
// What a connection keeps from an earlier run is its prepared statements,
// which spare a round trip each; PostgreSQL may plan them otherwise after
// many runs (a generic plan), which changes no result, only the order of
// rows a query gives in no order (a relay's mark: the timeline puts them in
// the order they were published).
type database struct {
	name     string
	url      string
	kind     string
	pool     *pgxpool.Pool
	poolName string           // the pool's application_name, this database's own
	empty    map[string]int64 // each table's size on disk (with its indexes) when empty
	// deletion is the statement a reset by DELETE runs (deleteStatement),
	// made at the first; resets counts the resets, and a reset by DELETE
	// that is a truncateEvery-th truncates instead.
	deletion string
	resets   int

	// provider is the card provider of this database's world (S19), on a
	// loopback port of its own with its store in the provider schema:
	// started by the first pipeline that charges, closed with the database.
	provider *provider.Server

	mu   sync.Mutex
	idle []*pgx.Conn // open, idle, named idleName: lent to actors first
	lent []lent      // handed to actors since the last reset
}

// lent is a connection and the actor it was handed to.
type lent struct {
	conn  *pgx.Conn
	actor string
}

// idleName names the actors' connections waiting idle for the next run,
// and poolName the simulator's own (one name a database, so that a reset
// spares this simulator's pool and no other's). Neither is an actor's name,
// so the lock-wait probe and crash now (both find an actor by its
// application_name) never take one for an actor.
const idleName = "outboxlab-idle"

var pools atomic.Int64

func poolName() string { return fmt.Sprintf("outboxlab-sim %d.%d", os.Getpid(), pools.Add(1)) }

// openDatabase gives the simulator a database as ResetDatabase leaves it
// (created from the template or emptied, every other session ended) with
// the lease witness installed in an outbox's.
func openDatabase(ctx context.Context, srv *pg.Server, name, kind string) (*database, error) {
	if err := srv.ResetDatabase(ctx, name); err != nil {
		return nil, err
	}
	d := &database{name: name, url: srv.DatabaseURL(name), kind: kind, poolName: poolName()}
	cfg, err := pgxpool.ParseConfig(d.url)
	if err != nil {
		return nil, fmt.Errorf("pool config: %w", err)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = d.poolName
	if d.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("open pool on %s: %w", name, err)
	}
	if kind == "outbox" {
		if _, err := d.pool.Exec(ctx, sqlWatchLeases); err != nil {
			d.close()
			return nil, fmt.Errorf("install the lease witness: %w", err)
		}
	}
	sizes, err := d.sizes(ctx)
	if err != nil {
		d.close()
		return nil, err
	}
	d.empty = map[string]int64{}
	for _, t := range sizes {
		d.empty[t.name] = t.size
	}
	return d, nil
}

// tables are the tables a reset empties: every table a run writes (the
// list pg.Reset empties) and, in an outbox's database, the lease witness.
func (d *database) tables() []string {
	t := []string{"payments", "idempotency_keys", "outbox_messages", "inbox_messages", "consumer_positions", "ledger_entries", "notifications", "relay_offsets", "relay_lanes", "parked_messages",
		"effect_outbox", "provider.charges", "provider.idempotency_keys"}
	if d.kind == "outbox" {
		t = append(t, "outboxlab_lease_claims")
	}
	return t
}

// tableSize is a table's size on disk with its indexes and TOAST, and
// whether a sequence it owns (an identity) was drawn from.
type tableSize struct {
	name  string
	size  int64
	drawn bool
}

func (d *database) sizes(ctx context.Context) ([]tableSize, error) {
	rows, err := d.pool.Query(ctx, sqlTableSizes, d.tables())
	if err != nil {
		return nil, fmt.Errorf("table sizes in %s: %w", d.name, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (t tableSize, err error) {
		return t, row.Scan(&t.name, &t.size, &t.drawn)
	})
	if err != nil {
		return nil, fmt.Errorf("table sizes in %s: %w", d.name, err)
	}
	return out, nil
}

// reset empties the database in place: every session that is not the
// simulator's own and may hold a lock is ended (a learner's psql inside a
// transaction, an actor's backend of another simulation, anything not
// idle); an idle session holds no lock the emptying waits for, and is left
// alone (a learner's psql between two queries, the user's own sessions on
// a --database-url server); then the tables are emptied, identities
// restarted: by DELETE when byDelete says so (ResetDelete), else truncated.
func (d *database) reset(ctx context.Context, byDelete bool) error {
	d.mu.Lock()
	keep := make([]int32, 0, len(d.idle))
	for _, c := range d.idle {
		keep = append(keep, int32(c.PgConn().PID()))
	}
	d.mu.Unlock()
	if _, err := d.pool.Exec(ctx, pg.SQLEndSessions, d.name, []string{d.poolName}, keep); err != nil {
		return fmt.Errorf("reset database %s: end sessions: %w", d.name, err)
	}
	var err error
	if d.resets++; byDelete && d.resets%truncateEvery != 0 {
		err = d.deleteRows(ctx)
	} else {
		err = d.truncate(ctx)
	}
	if err != nil {
		return fmt.Errorf("reset database %s: %w", d.name, err)
	}
	// A CDC relay's slot would resume at what the last run confirmed and
	// stream rows the reset removed; and it holds WAL while it exists.
	if err := pg.DropSlots(ctx, d.pool, d.name); err != nil {
		return fmt.Errorf("reset database %s: %w", d.name, err)
	}
	return nil
}

// truncate truncates the tables a run wrote, identities restarted (a
// TRUNCATE waits for the locks of a backend still exiting). The tables are
// new files again, so rows go where they went in the first run and no dead
// row is left for a later read to prune: pruning writes WAL, and the CDC
// relay's figure slot_retained_bytes counts every byte the server writes
// (a played CDC scene read 48 where its run read 0 when resets deleted). A
// table is left alone only if nothing was ever written to it: its size on
// disk, indexes included, is what it was empty (a row inserted, even rolled
// back, grows it) and its identity was not drawn from. A TRUNCATE costs a
// few milliseconds of CPU a table (new files for it, its indexes and
// TOAST), and the naive pipeline's database never has outbox rows nor keys.
func (d *database) truncate(ctx context.Context) error {
	sizes, err := d.sizes(ctx)
	if err != nil {
		return err
	}
	var written []string
	for _, t := range sizes {
		if empty, ok := d.empty[t.name]; !ok || t.size != empty || t.drawn {
			written = append(written, t.name)
		}
	}
	if len(written) == 0 {
		return nil
	}
	// No arguments: the simple protocol, so the TRUNCATE of each set of
	// tables is not prepared and cached on the connection.
	_, err = d.pool.Exec(ctx, "TRUNCATE "+strings.Join(written, ", ")+" RESTART IDENTITY")
	return err
}

// truncateEvery is how many resets by DELETE there are to one TRUNCATE:
// the dead rows DELETE leaves (until autovacuum comes) are bounded to what
// that many runs wrote.
const truncateEvery = 64

// deleteRows deletes every table's rows and restarts its identity, in one
// transaction and one round trip (deleteStatement). A TRUNCATE gives each
// table, index and TOAST new files, about a millisecond of the server's
// CPU a table, and changes the tables' catalog rows: every backend on the
// database then rebuilds its cache of them and plans each prepared
// statement that reads them again. A DELETE of a few rows changes no
// catalog row, so the actors' connections, kept from run to run, keep
// their plans. A run reads the same either way: rows a later run inserts
// may sit elsewhere on disk than after a TRUNCATE, and every query whose
// order matters says ORDER BY (the relays sort what a claim returns; the
// timeline orders marks as published); chaos's
// TestAWorkerRunsAsAFreshSessionDoes compares renewed runs with runs on a
// session of their own, entry for entry.
func (d *database) deleteRows(ctx context.Context) error {
	if d.deletion == "" {
		stmt, err := d.deleteStatement(ctx)
		if err != nil {
			return err
		}
		d.deletion = stmt
	}
	_, err := d.pool.Exec(ctx, d.deletion)
	return err
}

// deleteStatement is what deleteRows runs: every table's rows deleted and
// its identity restarted, in one transaction (no arguments: the simple
// protocol, nothing prepared and cached). It first takes a lock that waits
// for every other transaction that wrote to the tables, as TRUNCATE's
// would: a backend still rolling back a crashed actor's INSERT would
// otherwise keep its row's key locked into the next run.
func (d *database) deleteStatement(ctx context.Context) (string, error) {
	tables := d.tables()
	rows, err := d.pool.Query(ctx, sqlIdentitySequences, tables)
	if err != nil {
		return "", fmt.Errorf("identities: %w", err)
	}
	type sequence struct {
		name  string
		start int64
	}
	seqs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (q sequence, err error) {
		return q, row.Scan(&q.name, &q.start)
	})
	if err != nil {
		return "", fmt.Errorf("identities: %w", err)
	}
	var b strings.Builder
	b.WriteString("BEGIN; LOCK TABLE " + strings.Join(tables, ", ") + " IN EXCLUSIVE MODE;")
	for _, t := range tables {
		b.WriteString(" DELETE FROM " + t + ";")
	}
	if len(seqs) > 0 {
		restarts := make([]string, len(seqs))
		for i, q := range seqs {
			restarts[i] = fmt.Sprintf("setval(%s, %d, false)", quote(q.name), q.start)
		}
		b.WriteString(" SELECT " + strings.Join(restarts, ", ") + ";")
	}
	b.WriteString(" COMMIT")
	return b.String(), nil
}

// lend gives an actor a connection of its own, named after it: an idle one
// kept from an earlier run if one still answers, else a new one. Every
// connection lent is reclaimed (or closed) by the next reset.
func (d *database) lend(ctx context.Context, actor string) (*pgx.Conn, error) {
	for {
		d.mu.Lock()
		var c *pgx.Conn
		if n := len(d.idle); n > 0 {
			c, d.idle = d.idle[n-1], d.idle[:n-1]
		}
		d.mu.Unlock()
		if c == nil {
			break
		}
		// The name is how pg_stat_activity tells actors apart; setting it
		// also proves the connection still answers (a server restarted
		// since has cut it).
		if _, err := c.Exec(ctx, "SET application_name = "+quote(actor)); err != nil {
			_ = c.Close(context.Background())
			if ctx.Err() != nil {
				return nil, err
			}
			continue
		}
		d.mu.Lock()
		d.lent = append(d.lent, lent{c, actor})
		d.mu.Unlock()
		return c, nil
	}
	cfg, err := pgx.ParseConfig(d.url)
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["application_name"] = actor
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.lent = append(d.lent, lent{c, actor})
	d.mu.Unlock()
	return c, nil
}

// reclaim takes back the connections lent in the run that ended (every
// actor's goroutine has stopped): one that is open, outside a transaction
// and done with its last statement goes back idle, its session state reset
// and its name given up; any other is closed (a crashed actor's is closed
// already). A connection an engine object still points at is not used by
// it again: the objects go with the run.
func (d *database) reclaim(ctx context.Context) {
	d.mu.Lock()
	all := d.lent
	d.lent = nil
	d.mu.Unlock()
	var keep []*pgx.Conn
	for _, l := range all {
		c := l.conn
		if c.IsClosed() {
			continue
		}
		if pc := c.PgConn(); pc.TxStatus() != 'I' || pc.IsBusy() {
			_ = c.Close(ctx)
			continue
		}
		// RESET ALL goes back to the values the connection started with,
		// UNLISTEN * forgets a relay's listener; prepared statements stay,
		// which is the point.
		if _, err := c.Exec(ctx, "RESET ALL; UNLISTEN *; SET application_name = "+quote(idleName)); err != nil {
			_ = c.Close(ctx)
			continue
		}
		keep = append(keep, c)
	}
	d.mu.Lock()
	d.idle = append(d.idle, keep...)
	d.mu.Unlock()
}

// awaitClosed waits until the backends of the connections lent to actor
// that it closed (a crash, a dropped COMMIT) have ended. The server finishes
// such a session on its own time: it rolls back what was open, releasing
// its locks, or carries out the COMMIT written before the socket closed.
// Until it has, what the next actor finds (a row still locked, a payment
// committed or not yet) would depend on the machine's timing; after it,
// only on the schedule. A backend ends its transaction before it leaves
// pg_stat_activity. Only the actor's own connections are looked at: it has
// just reported, so its goroutine does not use them, while another actor's
// may be inside PostgreSQL. Errors are not the caller's: a server that is
// gone has no backends to wait for, and says so on its next statement.
func (d *database) awaitClosed(ctx context.Context, actor string) {
	d.mu.Lock()
	var pids []int32
	open := d.lent[:0]
	for _, l := range d.lent {
		if l.actor == actor && l.conn.IsClosed() {
			pids = append(pids, int32(l.conn.PgConn().PID()))
		} else {
			open = append(open, l)
		}
	}
	clear(d.lent[len(open):])
	d.lent = open
	d.mu.Unlock()
	if len(pids) == 0 {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	pause := 200 * time.Microsecond
	for time.Now().Before(deadline) {
		var n int
		if err := d.pool.QueryRow(ctx, sqlBackendsOf, pids).Scan(&n); err != nil || n == 0 {
			return
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return
		}
		pause = min(2*pause, 5*time.Millisecond)
	}
}

// close closes every connection: idle, lent and the pool's.
func (d *database) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if d.provider != nil {
		_ = d.provider.Close() // its calls in flight are the actors', all stopped by now
		d.provider = nil
	}
	d.mu.Lock()
	conns := d.idle
	for _, l := range d.lent {
		conns = append(conns, l.conn)
	}
	d.idle, d.lent = nil, nil
	d.mu.Unlock()
	for _, c := range conns {
		// A connection the server already cut closes with an error that
		// changes nothing: the backend is gone either way.
		_ = c.Close(ctx)
	}
	// A slot outlives every session: left, it would hold WAL until the
	// next run empties this database (or the next boot).
	_ = pg.DropSlots(ctx, d.pool, d.name)
	d.pool.Close()
}

// forget drops the idle connections after PostgreSQL restarted: they were
// cut with every other session.
func (d *database) forget() {
	d.mu.Lock()
	idle := d.idle
	d.idle = nil
	d.mu.Unlock()
	for _, c := range idle {
		_ = c.Close(context.Background())
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// cardProvider is the database's card provider, started on first use. Its
// store is this database's provider schema, on the simulator's own pool, so
// a reset (which spares that pool's sessions) empties it with the rest; its
// clock is the virtual one, so a replay stores the same times.
func (d *database) cardProvider(clock provider.Clock) (*provider.Server, error) {
	if d.provider == nil {
		srv, err := provider.Start(d.pool, clock)
		if err != nil {
			return nil, fmt.Errorf("start the card provider on %s: %w", d.name, err)
		}
		d.provider = srv
	}
	return d.provider, nil
}
