package deployui

import (
	"testing"

	"github.com/outboxlab/outboxlab/internal/importtest"
)

// The deployment's screen shares every screen's look (package screen) and
// links none of the simulator: not ui, not sim. catalog, its words, is
// the one package of the simulator's it takes.
func TestDeployScreenLinksNoSimulator(t *testing.T) {
	var forbidden []string
	for _, p := range importtest.Simulator {
		if p != "catalog/..." {
			forbidden = append(forbidden, p)
		}
	}
	importtest.Forbid(t, importtest.Module+"/deployui", forbidden...)
}
