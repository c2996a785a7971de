package ui

import (
	"os"
	"testing"

	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// TestMain runs the tests with colours whatever the shell says: the goldens
// are drawn as a colour terminal draws them (a test of NO_COLOR sets it).
func TestMain(m *testing.M) {
	os.Unsetenv("NO_COLOR")
	// A lesson played by keys waits for each key's quiet moment more than
	// it computes, so the package's tests all start at once whatever the
	// cores: its longest test, TestEveryLessonByKeysAlone, does not wait
	// for a slot behind the others.
	testrun.WaitMostly(8)
	pgtest.Main(m)
}
