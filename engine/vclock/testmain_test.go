package vclock

import (
	"testing"

	"github.com/outboxlab/outboxlab/internal/testrun"
)

// Under -race, no second's wait at the end (see testrun.Exit).
func TestMain(m *testing.M) { testrun.Exit(m.Run()) }
