package lessons

import (
	"strconv"

	"github.com/outboxlab/outboxlab/scenes"
)

// chaosLabels are the chaos figures as a sentence names them; the catalog
// says them in Spanish.
var chaosLabels = map[string]string{
	"runs":               "runs",
	"outbox_violations":  "outbox runs that broke a guarantee",
	"naive_runs":         "naive runs",
	"naive_lost_runs":    "naive runs with lost events",
	"naive_phantom_runs": "naive runs with phantom effects",
}

// Text is the check's line on screen in its lesson's language. English
// shows the check as the lesson writes it (the check language is English);
// another language says the same in its own words: the figure as the
// Guarantees pane labels it, the event and the state as the timeline and
// the pipeline say them. Names of actors, checkpoints and tables stay, as
// the screen writes them.
func (c *Check) Text() string {
	if c.Lang == "" || c.Lang == "en" {
		return c.Source
	}
	w := c.words()
	cmp := c.Op + " " + itoa(c.Value)
	pipe := ""
	if c.named && c.Pipeline != "" {
		pipe = " " + c.Pipeline
	}
	switch c.Kind {
	case "oracle":
		return w.T("oracle:%s %s %s", pipe, c.figure(), cmp)
	case "chaos":
		return w.T("chaos: %s %s", c.figure(), cmp)
	case "table":
		return w.T("table:%s rows of %s %s", pipe, c.Table, cmp)
	case "actor":
		actor := c.Actor
		if c.named {
			actor = c.Pipeline + "/" + actor
		}
		where := ""
		if c.Checkpoint != "" {
			where = w.Word(" at ") + c.Checkpoint
		}
		return w.T("actor: %s is %s%s", actor, c.state(c.State), where)
	case "timeline":
		actor := c.Actor
		if c.named {
			actor = c.Pipeline + "/" + actor
		}
		var s string
		switch c.Event {
		case "crashed":
			s = w.T("%s crashed", actor)
			if c.Checkpoint != "" {
				s = w.T("%s crashed at %s", actor, c.Checkpoint)
			}
		case "reached":
			s = w.T("%s reached %s", actor, c.Checkpoint)
		case "restarted":
			s = w.T("%s was restarted", actor)
		case "blocked":
			s = w.T("%s waited on a row lock", actor)
		case "failed":
			s = w.T("%s failed a unit of work", actor)
		}
		if c.counted {
			return w.T("timeline: %s, times %s", s, cmp)
		}
		return w.T("timeline: %s", s)
	}
	return c.Source
}

// figure is the check's figure as the screen labels it in the check's
// language; English keeps the name the check language uses.
func (c *Check) figure() string {
	if c.Lang == "" || c.Lang == "en" {
		return c.Figure
	}
	label := scenes.FigureLabel(c.Figure)
	if c.Kind == "chaos" {
		label = chaosLabels[c.Figure]
	}
	if label == "" {
		return c.Figure
	}
	if label == "notifications" {
		label = "notifications sent" // not the actor's name, which stays
	}
	return c.words().Word(label)
}

// state is an actor's state in the check's language, as the pipeline pane
// says it ("down" is the broker's: crashed, in the pipeline's words).
func (c *Check) state(s string) string {
	if c.Lang == "" || c.Lang == "en" {
		return s
	}
	if s == "down" {
		s = "crashed"
	}
	return c.words().Word(s)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
