package ui

import (
	"testing"

	"github.com/outboxlab/outboxlab/internal/importtest"
)

// The simulator's screen links no NATS and no deployment (before issue 25
// it linked 25 nats-io packages through the live screen's deploy).
func TestUILinksNoNATS(t *testing.T) {
	importtest.Forbid(t, importtest.Module+"/ui", "github.com/nats-io/...", "deploy/...", "deployui/...", "engine/jetstream/...")
}
