package launch

import (
	"testing"

	"github.com/outboxlab/outboxlab/internal/importtest"
)

// Starting the deployment on a server is the deployment's wing: it links
// none of the simulator's packages (the command line hands it the actors a
// scene's settings name, not the scene).
func TestLaunchLinksNoSimulator(t *testing.T) {
	importtest.Forbid(t, importtest.Module+"/deploy/launch", importtest.Simulator...)
}
