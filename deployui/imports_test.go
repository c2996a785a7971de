package deployui

import (
	"testing"

	"github.com/outboxlab/outboxlab/internal/importtest"
)

// The deployment's screen shares the simulator's look (ui/style) and
// links none of the simulator: not ui, not sim. catalog, its words, is
// the one package of the simulator's it takes.
func TestDeployScreenLinksNoSimulator(t *testing.T) {
	var forbidden []string
	for _, p := range importtest.Simulator {
		switch p {
		case "catalog/...":
		case "ui/...":
			forbidden = append(forbidden, "ui") // ui/style is the look it shares
		default:
			forbidden = append(forbidden, p)
		}
	}
	importtest.Forbid(t, importtest.Module+"/deployui", forbidden...)
}
