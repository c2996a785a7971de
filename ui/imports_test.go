package ui

import (
	"testing"

	"github.com/outboxlab/outboxlab/internal/importtest"
)

// The simulator's screen links no NATS and no deployment: the live screen
// lives in deployui, so ui draws no deployment and pulls in no nats-io
// package.
func TestUILinksNoNATS(t *testing.T) {
	importtest.Forbid(t, importtest.Module+"/ui", "github.com/nats-io/...", "deploy/...", "deployui/...", "engine/jetstream/...")
}
