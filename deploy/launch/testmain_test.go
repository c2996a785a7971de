package launch

import (
	"testing"

	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// The shared PostgreSQL server stops at the end, and under -race there is
// no second's wait (pgtest.Main ends with testrun.Exit).
func TestMain(m *testing.M) { pgtest.Main(m) }
