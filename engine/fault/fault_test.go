package fault

import (
	"slices"
	"testing"
)

func TestParseTakesOnlyTheKindsAsked(t *testing.T) {
	if f, err := Parse("drop-commit", Chaos); err != nil || f != DropCommit {
		t.Errorf("Parse(drop-commit) = %q, %v", f, err)
	}
	_, err := Parse("restart-postgres", Chaos)
	want := `"restart-postgres" is not a fault kind (kinds: [crash stall fail-commit drop-commit duplicate broker advance])`
	if err == nil || err.Error() != want {
		t.Errorf("Parse(restart-postgres, Chaos) = %v, want %s", err, want)
	}
}

func TestSplitAndJoinRoundTrip(t *testing.T) {
	fs := Split("crash,broker")
	if !slices.Equal(fs, []Fault{Crash, Broker}) || Join(fs) != "crash,broker" {
		t.Errorf("Split = %v, Join = %q", fs, Join(fs))
	}
}

func TestArmedFaultsAreTheActorOnes(t *testing.T) {
	for _, f := range Chaos {
		if got, want := f.IsArmed(), slices.Contains([]Fault{Crash, Stall, FailCommit, DropCommit}, f); got != want {
			t.Errorf("%s.IsArmed() = %v", f, got)
		}
	}
}
