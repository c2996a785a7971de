package ui

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/internal/importtest"
)

// The simulator's screen links no NATS and no deployment: the live screen
// lives in deployui, so ui draws no deployment and pulls in no nats-io
// package.
func TestUILinksNoNATS(t *testing.T) {
	importtest.Forbid(t, importtest.Module+"/ui", "github.com/nats-io/...", "deploy/...", "deployui/...", "engine/jetstream/...")
}

// The screen draws traces; it does not set OpenTelemetry's SDK up: that is
// telemetry's (telemetry.SimulationTracing), so no file of ui imports an
// SDK package itself.
func TestUISetsNoOpenTelemetrySDKUp(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, importtest.Module+"/ui").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if strings.HasPrefix(imp, "go.opentelemetry.io/otel/sdk") || strings.HasPrefix(imp, "go.opentelemetry.io/otel/exporters") {
			t.Errorf("ui imports %s: the SDK's set-up is telemetry's", imp)
		}
	}
}
