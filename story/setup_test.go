package story

import (
	"sync"
	"testing"

	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/sim/simtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var (
	runsMu sync.Mutex
	runs   = map[string]*sim.Result{}
)

// timeline runs a built-in scene once per test binary (in a mode, "" for the
// scene's own) on the shared test server and returns its timeline.
func timeline(t *testing.T, scene, mode string) []sim.Entry {
	t.Helper()
	runsMu.Lock()
	defer runsMu.Unlock()
	key := scene + "/" + mode
	if res, ok := runs[key]; ok {
		return res.Timeline
	}
	all, err := scenes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenes.Find(all, scene)
	if err != nil {
		t.Fatal(err)
	}
	res, err := simtest.Run(t, sc, sim.RunOptions{Mode: mode})
	if err != nil {
		t.Fatalf("run %s: %v", scene, err)
	}
	runs[key] = res
	return res.Timeline
}

// build tells a story of a scene's run, failing the test if it cannot.
func build(t *testing.T, scene, mode, pipeline, message string) Story {
	t.Helper()
	s, err := Build(timeline(t, scene, mode), pipeline, message)
	if err != nil {
		t.Fatalf("%s: %v", scene, err)
	}
	return s
}
