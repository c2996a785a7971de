package scenes

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/outboxlab/outboxlab/engine"
)

// Headers are the header lines that give a scene these settings, seed
// included, in the order the documentation lists them. Parse reads them
// back to the same Settings.
func (s Settings) Headers() []string {
	relay, order, versions := string(s.Relay()), "none", "check"
	if s.OrderByKey {
		order = "by-aggregate"
	}
	lease := Duration(s.Lease)
	if s.LeaseForever {
		lease = "forever"
	}
	if s.IgnoreVersions {
		versions = "ignore"
	}
	if s.ParkGaps {
		versions = "park"
	}
	// ordering: is said only when set, so every scene written before it
	// keeps its text.
	var ordering []string
	if s.Ordering != "" && s.Ordering != engine.OrderingNone {
		ordering = []string{"ordering: " + string(s.Ordering)}
	}
	// A CDC relay has no attempts (relay: cdc refuses max-attempts:).
	attempts := []string{fmt.Sprintf("max-attempts: %d", s.MaxAttempts)}
	if s.CDC {
		attempts = nil
	}
	h := slices.Concat([]string{
		"mode: " + string(s.Mode),
		"naive: " + s.Naive,
		"consumer: " + s.Consumer,
		"relay: " + relay,
		"order: " + order,
	}, ordering, []string{
		"versions: " + versions,
		fmt.Sprintf("relays: %d", s.Relays),
		fmt.Sprintf("workers: %d", s.Workers),
		fmt.Sprintf("writers: %d", s.Writers),
		"lease: " + lease,
		"ack-timeout: " + Duration(s.AckTimeout),
	}, attempts, []string{
		fmt.Sprintf("batch: %d", s.Batch),
		fmt.Sprintf("seed: %d", s.Seed),
	})
	if s.Effect != "" {
		// Only a scene with an external effect says so: every other
		// scene's text stays as it was.
		h = append(h, "effect: "+s.Effect)
	}
	if s.DedupWindow > 0 {
		// Likewise only where a scene has one.
		h = append(h, "dedup-window: "+Duration(s.DedupWindow))
	}
	return h
}

// Text writes a scene in its language: title and teaches, their
// translations (title.es: ...), the settings' headers, each step and each
// expectation, one a line. Parse reads it back to the same scene (lines
// aside). Variants are left out, with the expectations about them: the text
// is one run, as its settings say.
func (sc *Scene) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %s\n", oneLine(sc.Title))
	fmt.Fprintf(&b, "teaches: %s\n", oneLine(sc.Teaches))
	for _, lang := range slices.Sorted(maps.Keys(sc.Translations)) {
		tr := sc.Translations[lang]
		if tr.Title != "" {
			fmt.Fprintf(&b, "title.%s: %s\n", lang, oneLine(tr.Title))
		}
		if tr.Teaches != "" {
			fmt.Fprintf(&b, "teaches.%s: %s\n", lang, oneLine(tr.Teaches))
		}
	}
	for _, h := range sc.Settings.Headers() {
		b.WriteString(h + "\n")
	}
	b.WriteString("\n")
	for _, st := range sc.Steps {
		b.WriteString(st.String() + "\n")
	}
	sep := "\n"
	for _, e := range sc.Expects {
		if e.Variant == "" {
			b.WriteString(sep + "expect " + e.String() + "\n")
			sep = ""
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
