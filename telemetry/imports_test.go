package telemetry

import (
	"testing"

	"github.com/outboxlab/outboxlab/internal/importtest"
)

// telemetry is on the engine and small interfaces each wing implements: it
// links no simulator (its collector reads telemetry.Simulation, not a
// *sim.Sim) and no deployment.
func TestTelemetryLinksNoWing(t *testing.T) {
	importtest.Forbid(t, importtest.Module+"/telemetry", append(importtest.Simulator, "deploy/...", "deployui/...")...)
}
