package deploy

import (
	"testing"

	"github.com/outboxlab/outboxlab/internal/importtest"
)

// The deployment runs the engine with no simulator: it links none of the
// simulator's packages, not through httpapi's listener nor telemetry
// either.
func TestDeployLinksNoSimulator(t *testing.T) {
	t.Parallel()
	importtest.Forbid(t, importtest.Module+"/deploy", importtest.Simulator...)
}
