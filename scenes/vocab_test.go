package scenes

import (
	"slices"
	"testing"

	"github.com/outboxlab/outboxlab/engine"
)

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mode
		bad  bool
	}{
		{"", "", false}, {"outbox", Outbox, false}, {"naive", Naive, false}, {"compare", Compare, false},
		{"Outbox", "", true}, {"both", "", true},
	} {
		got, err := ParseMode(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseMode(%q) = %q, %v", tc.in, got, err)
		}
	}
}

// One list of actors per pipeline and settings; every name is one the scene
// language knows.
func TestActorsFollowTheSettings(t *testing.T) {
	set := DefaultSettings()
	set.Mode, set.Relays, set.Workers, set.Writers = Compare, 2, 2, 2
	if got, want := set.Actors("outbox"), []string{"api", "api-2", "relay-1", "relay-2", "accounting", "accounting-2", "notifications"}; !slices.Equal(got, want) {
		t.Errorf("outbox actors %v, want %v", got, want)
	}
	if got, want := set.AllActors(), []string{"naive", "api", "api-2", "relay-1", "relay-2", "accounting", "accounting-2", "notifications"}; !slices.Equal(got, want) {
		t.Errorf("all actors %v, want %v", got, want)
	}
	for _, a := range set.AllActors() {
		if !slices.Contains(Actors, a) {
			t.Errorf("%s is not in scenes.Actors", a)
		}
	}
	one := DefaultSettings()
	if got := one.AllActors(); !slices.Equal(got, []string{"api", "relay-1", "accounting", "notifications"}) {
		t.Errorf("default actors %v", got)
	}
	if got := CheckpointsOf("api-2"); !slices.Equal(got, CheckpointsOf("api")) {
		t.Errorf("api-2 reaches %v, want api's %v", got, CheckpointsOf("api"))
	}
}

// The figure table names each figure once, with a label and a meaning.
func TestFigureTable(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range FigureTable {
		if seen[f.Name] || f.Label == "" || f.Meaning == "" {
			t.Errorf("figure %+v: a name twice, or no label or meaning", f)
		}
		seen[f.Name] = true
	}
	if len(Figures) != len(FigureTable) || FigureLabel("outbox_rows") != "outbox rows" || FigureLabel("nope") != "" {
		t.Errorf("Figures %v, FigureLabel wrong", Figures)
	}
}

// consumer.called is reached only by a consumer that charges a card (S19):
// without an effect, a consumer's checkpoints are what they were before.
func TestSettingsCheckpointsOf(t *testing.T) {
	set := DefaultSettings()
	for _, a := range []string{"accounting", "notifications", "outbox/accounting"} {
		if slices.Contains(set.CheckpointsOf(a), engine.ConsumerCalled) {
			t.Errorf("%s reaches consumer.called with no effect", a)
		}
	}
	set.Effect = string(engine.ExternalProviderKey)
	set.Workers = 2
	for a, want := range map[string]bool{"accounting": true, "accounting-2": true, "naive/accounting": true, "notifications": false} {
		if got := slices.Contains(set.CheckpointsOf(a), engine.ConsumerCalled); got != want {
			t.Errorf("with an effect, %s reaches consumer.called: %v, want %v", a, got, want)
		}
	}
	if got, want := set.CheckpointsOf(Sender), CheckpointsOf(Sender); !slices.Equal(got, want) || len(got) != 2 {
		t.Errorf("sender reaches %v, want %v (sender.called, sender.marked)", got, want)
	}
}

// relay: cdc: the relay's checkpoints are the CDC relay's, in its order, for
// chaos (CheckpointsOf) and the choosers (CheckpointsFor); a polling relay's
// lists never offer received or confirmed, which it never reaches.
func TestCDCRelayCheckpoints(t *testing.T) {
	set := DefaultSettings()
	want := []engine.Checkpoint{engine.RelayReceived, engine.RelayPublished, engine.RelayMarked, engine.RelayConfirmed}
	polling := set.CheckpointsOf("relay-1")
	if slices.Contains(polling, engine.RelayReceived) || slices.Contains(polling, engine.RelayConfirmed) {
		t.Errorf("a polling relay's checkpoints %v hold the CDC relay's", polling)
	}
	set.CDC = true
	if got := set.CheckpointsOf("outbox/relay-1"); !slices.Equal(got, want) {
		t.Errorf("CheckpointsOf(relay-1) with relay: cdc = %v, want %v", got, want)
	}
	if got := set.CheckpointsFor("relay-1"); !slices.Equal(got, want) {
		t.Errorf("CheckpointsFor(relay-1) with relay: cdc = %v, want %v", got, want)
	}
	if got := set.CheckpointsFor("accounting"); !slices.Equal(got, CheckpointsOf("accounting")) {
		t.Errorf("a consumer's checkpoints change with relay: cdc: %v", got)
	}
}
