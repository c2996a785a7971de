package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Summary is the last JSON object `outboxlab run --json` prints per pipeline:
// the run, every figure of the oracle (each name an `expect` line accepts),
// and one object per expectation about this pipeline.
type Summary struct {
	Scene        string
	Variant      string
	Mode         string
	Pipeline     string
	Seed         uint64
	Figures      []NamedFigure
	OldestAge    time.Duration
	ExpectedHeld bool
	NoneApplied  bool
	Expectations []ExpectResult
}

// ExpectResult is one expectation as checked: its text, where it is written,
// what the oracle found and whether it held (skipped: its pipeline did not run).
type ExpectResult struct {
	Text    string `json:"text"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Got     int64  `json:"got"`
	Held    bool   `json:"held"`
	Skipped bool   `json:"skipped,omitempty"`
}

// MarshalJSON writes a flat object in a fixed order: the run, then each
// figure under its own name, then the verdict and the expectations.
func (s Summary) MarshalJSON() ([]byte, error) {
	type kv struct {
		k string
		v any
	}
	fields := []kv{{"scene", s.Scene}}
	if s.Variant != "" {
		fields = append(fields, kv{"variant", s.Variant})
	}
	fields = append(fields, kv{"mode", s.Mode}, kv{"pipeline", s.Pipeline}, kv{"seed", s.Seed})
	for _, f := range s.Figures {
		fields = append(fields, kv{f.Name, f.Value})
	}
	expectations := s.Expectations
	if expectations == nil {
		expectations = []ExpectResult{}
	}
	fields = append(fields, kv{"oldest_pending_age_s", s.OldestAge.Seconds()}, kv{"expected_held", s.ExpectedHeld},
		kv{"no_expectation_applied", s.NoneApplied}, kv{"expectations", expectations})
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.k)
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, fmt.Errorf("summary %s: %w", f.k, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Summaries are one Summary per pipeline that ran.
func (r *Result) Summaries(variant string) []Summary {
	var out []Summary
	for _, o := range r.Oracles {
		s := Summary{
			Scene: r.Scene.Name, Variant: variant, Mode: string(r.Settings.Mode), Pipeline: o.Pipeline, Seed: r.Seed,
			Figures: o.Figures(), OldestAge: o.OldestPendingAge, ExpectedHeld: r.Held, NoneApplied: r.NoneApplied,
		}
		for _, c := range r.Checks {
			// A skipped expectation has no pipeline that ran: it goes with
			// each summary, so none is left out.
			if c.Expect.Pipeline != o.Pipeline && !c.Skipped {
				continue
			}
			s.Expectations = append(s.Expectations, ExpectResult{
				Text: "expect " + c.Expect.String(), File: r.Scene.File, Line: c.Expect.Line,
				Got: c.Got, Held: c.Held, Skipped: c.Skipped,
			})
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
		if o.External != "" {
			fmt.Fprintf(w, "  %-6s card provider (effect: %s): charges %d · lost charges %d · double charges %d\n", "", o.External, o.Charges, o.LostCharges, o.DoubleCharges)
		}
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
	switch {
	case r.NoneApplied && len(r.Checks) == 0:
		fmt.Fprintf(w, "no expectation is about this run: they all belong to variants (%s), so nothing was checked; run one with --variant NAME\n", strings.Join(r.Scene.ExpectVariants(), ", "))
	case r.NoneApplied:
		fmt.Fprintf(w, "no expectation applies in mode %s: each names a pipeline this mode does not run, so nothing was checked (run it in the scene's own mode, %s)\n", r.Settings.Mode, r.Scene.Settings.Mode)
	case r.Held:
		fmt.Fprintln(w, "expected outcome held")
	default:
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
		cp = string(e.Kind)
	}
	fmt.Fprintf(w, "%s %-22s %-24s%s %s\n", e.At.Format("15:04:05.000"), where, cp, stmt, strings.TrimSpace(e.Explain))
}
