package fault

import (
	"fmt"
	"slices"
	"strings"
)

// Fault is a kind of fault; its value is its word in a scene, in chaos
// --faults and in a faults API path.
type Fault string

// The faults.
const (
	Crash           Fault = "crash"            // kill the actor: its connection closes without COMMIT
	Stall           Fault = "stall"            // hold it at the checkpoint until resumed
	FailCommit      Fault = "fail-commit"      // its next COMMIT fails (rolled back)
	DropCommit      Fault = "drop-commit"      // its next COMMIT commits, and the reply is lost
	Duplicate       Fault = "duplicate"        // the broker delivers a message again
	Broker          Fault = "broker"           // the broker goes down, or up again
	Advance         Fault = "advance"          // the clock jumps: past a lease or an ack timeout
	RestartPostgres Fault = "restart-postgres" // the server stops and starts again
)

// Armed are the faults armed on an actor ("FAULT ACTOR at CHECKPOINT"),
// as the documentation lists them.
var Armed = []Fault{Crash, Stall, FailCommit, DropCommit}

// Chaos are the faults a chaos schedule may draw. restart-postgres is not
// among them: the server is shared by the runs going on at once.
var Chaos = []Fault{Crash, Stall, FailCommit, DropCommit, Duplicate, Broker, Advance}

// API are the faults the faults API (POST /faults/…) takes, in its paths'
// order.
var API = []Fault{Crash, Stall, Broker}

func (f Fault) String() string { return string(f) }

// IsArmed reports whether f is armed on an actor, to fire at a checkpoint.
func (f Fault) IsArmed() bool { return slices.Contains(Armed, f) }

// Parse reads a fault's word, one of kinds; the error lists them.
func Parse(word string, kinds []Fault) (Fault, error) {
	f := Fault(word)
	if !slices.Contains(kinds, f) {
		return "", fmt.Errorf("%q is not a fault kind (kinds: %v)", word, kinds)
	}
	return f, nil
}

// Split reads a comma-separated list of words ("crash,stall", as chaos
// --faults takes them) without checking them: Parse does, where the list is
// used.
func Split(words string) []Fault {
	var out []Fault
	for _, w := range strings.Split(words, ",") {
		out = append(out, Fault(w))
	}
	return out
}

// Join writes faults as Split reads them.
func Join(faults []Fault) string {
	words := make([]string, len(faults))
	for i, f := range faults {
		words[i] = string(f)
	}
	return strings.Join(words, ",")
}
