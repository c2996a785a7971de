package deploy

import (
	"testing"

	"github.com/outboxlab/outboxlab/internal/importtest"
)

// The deployment runs the engine with no simulator: it links none of the
// simulator's packages (before issue 25 it linked sim, scenes, provider,
// catalog and edge, through edge's listener and telemetry).
func TestDeployLinksNoSimulator(t *testing.T) {
	t.Parallel()
	importtest.Forbid(t, importtest.Module+"/deploy", importtest.Simulator...)
}
