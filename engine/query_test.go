package engine

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestStatementErrorsAreMappedOnce runs statements that fail with each
// SQLSTATE the engine maps through every helper of its call path: each error
// wraps the engine's sentinel, names the statement once, in front, and each
// statement is noted in the order it ran.
func TestStatementErrorsAreMappedOnce(t *testing.T) {
	ctx := context.Background()
	b := setup(t)
	a := newActor("tester", b.clock, nil, b.connect)
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	c, err := a.conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, `CREATE FUNCTION pg_temp.fail(code text) RETURNS int LANGUAGE plpgsql
		AS $$ BEGIN RAISE EXCEPTION 'failed on purpose' USING ERRCODE = code; END $$`); err != nil {
		t.Fatal(err)
	}
	failing := &Statement{Name: "fail_on_purpose", SQL: "SELECT pg_temp.fail($1)"}
	type run func(code string) error
	helpers := []struct {
		name string
		run  run
	}{
		{"exec", func(code string) error { _, err := a.exec(ctx, c, failing, code); return err }},
		{"queryRow", func(code string) error { var n int; return a.queryRow(ctx, c, failing, code).Scan(&n) }},
		{"query", func(code string) error {
			var got []int
			return a.query(ctx, c, failing, collectInto(&got, pgx.RowTo[int]), code)
		}},
		{"execOn", func(code string) error { _, err := execOn(ctx, c, failing, code); return err }},
		{"batchExec", func(code string) error {
			a.note(failing)
			batch := &pgx.Batch{}
			batch.Queue(failing.SQL, code)
			br := c.SendBatch(ctx, batch)
			defer br.Close()
			_, err := batchExec(br, failing)
			return err
		}},
		{"batchQuery", func(code string) error {
			a.note(failing)
			batch := &pgx.Batch{}
			batch.Queue(failing.SQL, code)
			br := c.SendBatch(ctx, batch)
			defer br.Close()
			return batchQuery(br, failing, func(rows pgx.Rows) error { return nil })
		}},
	}
	codes := []struct {
		code string
		want error
	}{
		{"23505", ErrDuplicate},
		{"23502", ErrConstraint},
		{"40001", ErrSerialization},
		{"40P01", ErrSerialization},
		{"57P01", ErrConnection},
	}
	for _, h := range helpers {
		for _, tc := range codes {
			t.Run(h.name+"/"+tc.code, func(t *testing.T) {
				a.ran = nil
				err := h.run(tc.code)
				if !errors.Is(err, tc.want) {
					t.Fatalf("error %v, want one wrapping %v", err, tc.want)
				}
				assertNamedOnce(t, err, failing)
				if h.name != "execOn" && !slices.Equal(a.ran, []*Statement{failing}) {
					t.Errorf("noted %v, want the statement once", names(a.ran))
				}
			})
		}
	}

	none := &Statement{Name: "select_nothing", SQL: "SELECT 1 WHERE false"}
	t.Run("queryRow/no row", func(t *testing.T) {
		var n int
		err := a.queryRow(ctx, c, none).Scan(&n)
		if !errors.Is(err, ErrNotFound) || !errors.Is(err, pgx.ErrNoRows) {
			t.Fatalf("error %v, want one wrapping ErrNotFound and pgx.ErrNoRows", err)
		}
		assertNamedOnce(t, err, none)
	})
	t.Run("query/read error", func(t *testing.T) {
		boom := errors.New("the read refused the rows")
		err := a.query(ctx, c, none, func(pgx.Rows) error { return boom })
		if !errors.Is(err, boom) {
			t.Fatalf("error %v, want the read's", err)
		}
		assertNamedOnce(t, err, none)
	})
	t.Run("exec/cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := a.exec(cctx, c, none)
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrConnection) {
			t.Fatalf("error %v, want context.Canceled as it is", err)
		}
		assertNamedOnce(t, err, none)
	})
}

func assertNamedOnce(t *testing.T, err error, st *Statement) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, st.Name+": ") || strings.Count(msg, st.Name) != 1 {
		t.Errorf("error %q, want it to begin with %q and name the statement once", msg, st.Name+": ")
	}
}

func names(sts []*Statement) []string {
	out := make([]string, len(sts))
	for i, st := range sts {
		out[i] = st.Name
	}
	return out
}

// handMapped are the functions that may call mapDBError, and why: stmtError
// for every statement, the others for errors that are no statement's.
var handMapped = map[string]string{
	"query.go stmtError":             "the one place a statement's error is mapped",
	"actor.go actor.open":            "connecting runs no statement",
	"relay_cdc.go Relay.startStream": "the replication connection's connect runs no statement",
	"relay_cdc.go Relay.receiveOne":  "the replication stream's messages are no statement",
	"relay_cdc.go Relay.sendStatus":  "a standby status update is a replication message, not a statement",
}

// TestStatementsRunThroughTheCallPath reads the engine's source: outside
// query.go no code maps a driver error by hand (but handMapped), runs a
// Statement's SQL on a connection, or reads a batch's reply; query.go's
// helpers do, so every statement is noted and its error mapped and named in
// one place.
func TestStatementsRunThroughTheCallPath(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	mapping := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			where := name + " " + funcName(fn)
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				pos := fset.Position(call.Pos())
				if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "mapDBError" {
					mapping[where] = true
					if _, ok := handMapped[where]; !ok {
						t.Errorf("%s (%s): mapDBError by hand: run the statement through query.go's helpers, whose error is mapped and named once", pos, where)
					}
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || name == "query.go" {
					return true
				}
				switch sel.Sel.Name {
				case "Exec", "Query", "QueryRow":
				default:
					return true
				}
				if len(call.Args) == 0 {
					t.Errorf("%s (%s): a batch's reply read by hand: read it with batchExec or batchQuery", pos, where)
				}
				for _, arg := range call.Args {
					if s, ok := arg.(*ast.SelectorExpr); ok && s.Sel.Name == "SQL" {
						t.Errorf("%s (%s): a statement's SQL run by hand: run it with exec, queryRow, query (or execOn, queryRowOn, queryOn)", pos, where)
					}
				}
				return true
			})
		}
	}
	if checked < 20 {
		t.Fatalf("read %d files of the engine: is the test in its folder?", checked)
	}
	for where := range handMapped {
		if !mapping[where] {
			t.Errorf("handMapped names %s, which maps no error now: take it off the list", where)
		}
	}
}

// funcName is a function's name, with its receiver's type for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
