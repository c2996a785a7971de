package chaos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/scenes"
)

// A run's violations are values (the invariant's figure and what it came
// to), and the report prints and marshals them as it did when they were
// text read back ("lost_events 1"): outboxlab chaos's table, and --json's
// field names and values, are what workshops and scripts read.
func TestReportOfViolationsReadsAsBefore(t *testing.T) {
	outs := []Outcome{
		{Index: 0, Payments: 3},
		{Index: 1, Payments: 2, NaiveLost: 1, Broken: []Violation{
			{Pipeline: "outbox", Figure: "lost_events", Got: 1},
			{Pipeline: "outbox", Figure: "double_leases_from_timeline", Got: 2},
		}},
		{Index: 2, Payments: 4, NaivePhantom: 2},
	}
	r := Summarize(outs, Options{}, 7, 0, 2*time.Second)
	for _, o := range outs {
		for _, v := range o.Violations(scenes.Compare) {
			r.Found = append(r.Found, Found{Index: o.Index, Violation: v, Replay: "outboxlab chaos --seed 7 --from 1 --runs 1 --mode compare"})
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), wantReportJSON; got != want {
		t.Errorf("chaos --json:\n got %s\nwant %s", got, want)
	}
	var w bytes.Buffer
	r.WriteText(&w)
	if got, want := w.String(), wantReportText; got != want {
		t.Errorf("chaos's table:\n--- got\n%s\n--- want\n%s", got, want)
	}
	// In naive mode the naive write's losses are violations too, after
	// the outbox's.
	if got, want := fmt.Sprint(outs[1].Violations(scenes.Naive)), "[outbox lost_events == 1 outbox double_leases_from_timeline == 2 naive lost_events == 1]"; got != want {
		t.Errorf("naive mode's violations %s, want %s", got, want)
	}
}

const wantReportJSON = `{"seed":7,"mode":"compare","from":0,"runs":3,"elapsed_ns":2000000000,"runs_per_second":1.5,"payments":9,"asked":0,"interrupted":false,"outbox_runs":3,"outbox_violations":1,"outbox_violation_rate_ci95":[0.06149194402093078,0.7923404011921757],"outbox_broken_runs":{"double_leases":0,"double_leases_from_timeline":1,"duplicate_effects":0,"lost_events":1,"pending":0,"phantom_effects":0,"suppressed_effects":0},"naive_runs":3,"naive_lost_runs":1,"naive_lost_events":1,"naive_phantom_runs":1,"naive_phantom_effects":2,"naive_lost_rate_ci95":[0.06149194402093078,0.7923404011921757],"naive_phantom_rate_ci95":[0.06149194402093078,0.7923404011921757],"violations":[{"index":1,"violation":{"pipeline":"outbox","figure":"lost_events","got":1},"replay":"outboxlab chaos --seed 7 --from 1 --runs 1 --mode compare"},{"index":1,"violation":{"pipeline":"outbox","figure":"double_leases_from_timeline","got":2},"replay":"outboxlab chaos --seed 7 --from 1 --runs 1 --mode compare"}]}`

const wantReportText = `chaos: 3 schedules of seed 7 (from 0), mode compare: 2.0 s, 1.5 schedules/s, 9 payments

  outbox chain   1 of 3 runs broke a guarantee (95% CI 6.1%–79.2%): it BROKE A GUARANTEE
                 runs that broke each, after their drain: lost_events 1, phantom_effects 0, duplicate_effects 0, suppressed_effects 0, double_leases 0, pending 0, double_leases_from_timeline 1
  naive write    lost events in 1 of 3 runs (33.3%, 95% CI 6.1%–79.2%), 1 events in all
                 phantom effects in 1 of 3 runs (33.3%, 95% CI 6.1%–79.2%), 2 effects in all

  run 1 broke outbox lost_events == 1
    alone:  outboxlab chaos --seed 7 --from 1 --runs 1 --mode compare

  run 1 broke outbox double_leases_from_timeline == 2
    alone:  outboxlab chaos --seed 7 --from 1 --runs 1 --mode compare
`
