package ui

import (
	"testing"

	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// The help's psql commands name the databases on screen, except where the
// user has no terminal to reach them from (a workshop's learner).
func TestPSQLCommandsOnlyWhereTheyCanBeUsed(t *testing.T) {
	srv := pgtest.Server(t)
	for _, noPSQL := range []bool{false, true} {
		m, err := setup(t.Context(), Options{DBPrefix: DefaultDBPrefix, NoPSQL: noPSQL}, newResources())
		if err != nil {
			t.Fatal(err)
		}
		m.srv = srv
		if got := m.psqlCommands(); (len(got) == 0) != noPSQL {
			t.Errorf("NoPSQL %v: psql commands %q", noPSQL, got)
		}
	}
}
