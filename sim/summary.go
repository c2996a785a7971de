package sim

import (
	"fmt"
	"io"
	"strings"
)

// Summary is the last JSON object `outboxlab run --json` prints per pipeline.
type Summary struct {
	Scene               string   `json:"scene"`
	Variant             string   `json:"variant,omitempty"`
	Mode                string   `json:"mode"`
	Pipeline            string   `json:"pipeline"`
	Seed                uint64   `json:"seed"`
	Payments            int64    `json:"payments"`
	OutboxRows          int64    `json:"outbox_rows"`
	Published           int64    `json:"published"`
	Publishes           int64    `json:"publishes"`
	Deliveries          int64    `json:"deliveries"`
	DuplicatesDelivered int64    `json:"duplicates_delivered"`
	DuplicatesIgnored   int64    `json:"duplicates_ignored"`
	Effects             int64    `json:"effects"`
	LostEvents          int64    `json:"lost_events"`
	PhantomEffects      int64    `json:"phantom_effects"`
	DuplicateEffects    int64    `json:"duplicate_effects"`
	DeadLettered        int64    `json:"dead_lettered"`
	OldestPendingAgeS   float64  `json:"oldest_pending_age_s"`
	ExpectedHeld        bool     `json:"expected_held"`
	Failed              []string `json:"failed_expectations,omitempty"`
}

// Summaries are one Summary per pipeline that ran.
func (r *Result) Summaries(variant string) []Summary {
	var out []Summary
	for _, o := range r.Oracles {
		s := Summary{
			Scene: r.Scene.Name, Variant: variant, Mode: r.Settings.Mode, Pipeline: o.Pipeline, Seed: r.Seed,
			Payments: o.Payments, OutboxRows: o.OutboxRows, Published: o.Published, Publishes: o.Publishes,
			Deliveries: o.Deliveries, DuplicatesDelivered: o.DuplicatesDelivered, DuplicatesIgnored: o.DuplicatesIgnored,
			Effects: o.Effects, LostEvents: o.LostEvents, PhantomEffects: o.PhantomEffects,
			DuplicateEffects: o.DuplicateEffects, DeadLettered: o.DeadLettered,
			OldestPendingAgeS: o.OldestPendingAge.Seconds(), ExpectedHeld: true,
		}
		for _, c := range r.Checks {
			if c.Expect.Pipeline == o.Pipeline && !c.Skipped && !c.Held {
				s.ExpectedHeld = false
				s.Failed = append(s.Failed, fmt.Sprintf("%s (got %d)", c.Expect, c.Got))
			}
		}
		out = append(out, s)
	}
	return out
}

// WriteText prints the timeline and a summary for a terminal.
func (r *Result) WriteText(w io.Writer) {
	for _, e := range r.Timeline {
		WriteEntry(w, e)
	}
	fmt.Fprintf(w, "\nscene %s (%s), mode %s, seed %d\n", r.Scene.Name, r.Scene.Title, r.Settings.Mode, r.Seed)
	for _, o := range r.Oracles {
		fmt.Fprintf(w, "  %-6s payments %d · outbox rows %d · published %d · publishes %d · deliveries %d · duplicates ignored %d · effects %d · lost %d · phantom %d · duplicate effects %d · dead-lettered %d\n",
			o.Pipeline, o.Payments, o.OutboxRows, o.Published, o.Publishes, o.Deliveries, o.DuplicatesIgnored, o.Effects, o.LostEvents, o.PhantomEffects, o.DuplicateEffects, o.DeadLettered)
	}
	for _, c := range r.Checks {
		mark := "ok  "
		switch {
		case c.Skipped:
			mark = "skip"
		case !c.Held:
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  %s expect %s (got %d)\n", mark, c.Expect, c.Got)
	}
	if r.Held {
		fmt.Fprintln(w, "expected outcome held")
	} else {
		fmt.Fprintln(w, "expected outcome did NOT hold")
	}
}

// WriteEntry prints one timeline entry on one line.
func WriteEntry(w io.Writer, e Entry) {
	where := e.Actor
	if e.Pipeline != "" {
		where = e.Pipeline + "/" + e.Actor
	}
	stmt := ""
	if e.Statement != "" {
		stmt = " [" + e.Statement + "]"
	}
	cp := e.Checkpoint
	if cp == "" {
		cp = e.Kind
	}
	fmt.Fprintf(w, "%s %-22s %-24s%s %s\n", e.At.Format("15:04:05.000"), where, cp, stmt, strings.TrimSpace(e.Explain))
}
