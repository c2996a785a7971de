package telemetry

import (
	"testing"

	"github.com/outboxlab/outboxlab/internal/importtest"
)

// telemetry is on the engine and small interfaces each wing implements: it
// links no simulator (its collector read a *sim.Sim before issue 25) and
// no deployment.
func TestTelemetryLinksNoWing(t *testing.T) {
	importtest.Forbid(t, importtest.Module+"/telemetry", append(importtest.Simulator, "deploy/...", "deployui/...")...)
}
