package lessons

import (
	"fmt"
	"strings"
)

// Pane names the data pane a step asks the learner to read, from its
// "watch:" line. The screen shows it beside or under the lesson at every
// size, so a step never points at a pane that is not there.
type Pane string

// The panes a step can name.
const (
	PaneNone       Pane = ""           // the layout's default
	PaneGuarantees Pane = "guarantees" // the oracle's figures, from the database
	PaneTables     Pane = "tables"     // the rows of the outbox and the consumers' tables
	PaneTimeline   Pane = "timeline"   // what each actor did, in order
	PaneMetrics    Pane = "metrics"    // the figures an operator watches
)

// Panes lists every pane a "watch:" line may name, in the order help shows.
var Panes = []Pane{PaneGuarantees, PaneTables, PaneTimeline, PaneMetrics}

// ParsePane reads a "watch:" value.
func ParsePane(s string) (Pane, error) {
	for _, p := range Panes {
		if strings.EqualFold(strings.TrimSpace(s), string(p)) {
			return p, nil
		}
	}
	names := make([]string, len(Panes))
	for i, p := range Panes {
		names[i] = string(p)
	}
	return PaneNone, fmt.Errorf("unknown pane %q (known: %s)", s, strings.Join(names, ", "))
}
