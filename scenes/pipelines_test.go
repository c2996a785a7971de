package scenes

import (
	"slices"
	"testing"

	"github.com/outboxlab/outboxlab/pg"
)

// Every pipeline a scene can run has a database kind of its name in a
// namespace, and every kind is a pipeline's: DropAll then drops what any
// mode made.
func TestEveryPipelineHasItsDatabaseKind(t *testing.T) {
	kinds := pg.PipelineKinds()
	all := AllPipelines()
	slices.Sort(kinds)
	slices.Sort(all)
	if !slices.Equal(kinds, all) {
		t.Errorf("pipelines %v, database kinds %v: want the same", all, kinds)
	}
	for _, m := range []Mode{Outbox, Naive, Compare} {
		for _, p := range (Settings{Mode: m}).Pipelines() {
			if !slices.Contains(kinds, p) {
				t.Errorf("mode %s runs %s, which has no database kind", m, p)
			}
		}
	}
}
