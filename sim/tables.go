package sim

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/outboxlab/outboxlab/engine"
)

// Table is a window of one database table as the TUI draws it: read from the
// real database, only the rows asked for.
type Table struct {
	Name    string
	Columns []string
	Rows    [][]string
	Keys    []string // each row's primary key, to highlight rows a step changed
	Total   int      // rows in the table
	Offset  int
}

// TableNames are the tables a learner can look at, in pipeline order, then
// the ones only some scenes fill: the consumers' parked deliveries
// (versions: park) and the seq-cursor relay's cursors.
var TableNames = []string{"payments", "outbox_messages", "inbox_messages", "ledger_entries", "notifications", "parked_messages", "relay_offsets"}

// tableQueries read a window of each table, newest activity last, keyed so a
// changed row can be recognised between two reads. Times are shown as the
// virtual clock's HH:MM:SS.mmm.
// Each lives in sql/count_<table>.sql and sql/table_<table>.sql.
var tableQueries = func() map[string]struct{ count, rows string } {
	m := map[string]struct{ count, rows string }{}
	for _, name := range TableNames {
		m[name] = struct{ count, rows string }{statement("count_" + name), statement("table_" + name)}
	}
	return m
}()

var tableColumns = map[string][]string{
	"payments":        {"id", "client", "amount", "cur", "ver", "created"},
	"outbox_messages": {"id", "seq", "aggregate", "ver", "att", "lock", "lease until", "next attempt", "published", "dead", "last error"},
	"relay_offsets":   {"relay", "last seq"},
	"inbox_messages":  {"consumer", "message", "processed"},
	"ledger_entries":  {"#", "message", "payment", "amount", "cur", "at"},
	"notifications":   {"#", "message", "payment", "body", "at"},
	"parked_messages": {"consumer", "message", "aggregate", "ver", "type", "parked"},
}

// Table reads rows offset..offset+limit of a table of one pipeline.
func (s *Sim) Table(ctx context.Context, pipeline, name string, offset, limit int) (Table, error) {
	s.op.Lock()
	defer s.op.Unlock()
	p := s.Pipeline(pipeline)
	if p == nil {
		return Table{}, fmt.Errorf("no %s pipeline in this scene", pipeline)
	}
	q, ok := tableQueries[name]
	if !ok {
		return Table{}, fmt.Errorf("no table %q (tables: %s)", name, strings.Join(TableNames, ", "))
	}
	t := Table{Name: name, Columns: tableColumns[name], Offset: offset}
	if err := p.pool.QueryRow(ctx, q.count).Scan(&t.Total); err != nil {
		return t, fmt.Errorf("count %s: %w", name, err)
	}
	rows, err := p.pool.Query(ctx, q.rows, offset, limit)
	if err != nil {
		return t, fmt.Errorf("read %s: %w", name, err)
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]string, error) {
		vals := make([]string, len(r.FieldDescriptions()))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		return vals, r.Scan(ptrs...)
	})
	if err != nil {
		return t, fmt.Errorf("read %s: %w", name, err)
	}
	for _, r := range all {
		t.Keys = append(t.Keys, r[0])
		t.Rows = append(t.Rows, r[1:])
	}
	return t, nil
}

// Metrics is the S24 dashboard of one pipeline, the age of the oldest
// pending message first: it is the one figure that says the relay is behind.
type Metrics struct {
	Pipeline string
	engine.Metrics
}

// Metrics reads the S24 figures of every pipeline at the virtual now.
func (s *Sim) Metrics(ctx context.Context) ([]Metrics, error) {
	s.op.Lock()
	defer s.op.Unlock()
	var out []Metrics
	for _, p := range s.pipes {
		var m engine.Metrics
		err := p.withConn(ctx, func(c *pgx.Conn) error {
			var err error
			m, err = engine.Snapshot(ctx, c, s.clock.Peek(), p.counters)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%s metrics: %w", p.Kind, err)
		}
		out = append(out, Metrics{Pipeline: p.Kind, Metrics: m})
	}
	return out, nil
}
