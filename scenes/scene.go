package scenes

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/engine"
)

// Scene is one parsed scenario.
type Scene struct {
	Name    string // file name without extension
	File    string // where it came from, for messages
	Title   string
	Teaches string
	// Translations are the title and teaches in other languages, by
	// two-letter code (title.es:, teaches.es:); Title and Teaches are English.
	Translations map[string]Translation
	Settings     Settings
	Variants     map[string]Settings // named alternatives (the wrong ways)
	Steps        []Step
	Expects      []Expect
}

// Translation is a scene's title and teaches in one language; a part left
// empty is said in English.
type Translation struct{ Title, Teaches string }

// TitleIn is the title in lang ("es"), or in English when the scene has none in it.
func (sc *Scene) TitleIn(lang string) string {
	if t := sc.Translations[lang].Title; t != "" {
		return t
	}
	return sc.Title
}

// TeachesIn is what the scene teaches in lang, or in English when it does
// not say it in lang.
func (sc *Scene) TeachesIn(lang string) string {
	if t := sc.Translations[lang].Teaches; t != "" {
		return t
	}
	return sc.Teaches
}

// Settings configure the pipelines a scene runs.
type Settings struct {
	Mode        Mode   // naive | outbox | compare
	Naive       string // commit-then-publish | publish-then-commit
	Consumer    string // inbox | select-then-insert | trace-id
	Relays      int
	Workers     int // accounting workers (2 shows concurrent deliveries, S18)
	Lease       time.Duration
	AckTimeout  time.Duration
	MaxAttempts int
	Batch       int
	OrderByKey  bool
	// IgnoreVersions turns the consumers' per-aggregate version check off, to
	// show what the inbox alone does (and does not) protect (S23).
	IgnoreVersions bool
	HoldTx         bool // the wrong relay that keeps its transaction open while publishing (S8)
	// SeqCursor is the wrong relay that polls WHERE seq > last (Watermill
	// #311): a transaction that commits after a higher seq was
	// polled is never published.
	SeqCursor bool
	// LeaseForever is the wrong lease a zombie relay tempts one into: a claim with no end, as status = 'processing' is.
	LeaseForever bool
	// Ordering keeps one aggregate's events in order between relays (S20):
	// none, partition or one-in-flight.
	Ordering engine.Ordering
	// ParkGaps makes the consumers park an event ahead of its version and
	// apply it when the gap fills (versions: park), instead of NACKing it.
	ParkGaps bool
	// CDC is the relay that reads the outbox's inserts from logical
	// replication: no poll, no lease; a slot that holds
	// WAL while it is down.
	CDC     bool
	Writers int // api writers (2 lets one commit while the other waits before its COMMIT)
	// Effect is how accounting also charges the card through the provider
	// (S19, an engine.External: marker-before, marker-after, provider-key,
	// second-outbox); "" charges nothing.
	Effect string
	// DedupWindow > 0 gives the broker JetStream's dedup window: a publish
	// of an id it took within the window is acked as a duplicate and
	// dropped. 0, the default, keeps every publish.
	DedupWindow time.Duration
	Seed        uint64
}

// DefaultSettings are what a scene gets for every header it leaves out.
func DefaultSettings() Settings {
	return Settings{
		Mode: "outbox", Naive: "commit-then-publish", Consumer: "inbox",
		Relays: 1, Workers: 1, Writers: 1, Lease: 30 * time.Second, AckTimeout: 30 * time.Second,
		MaxAttempts: 12, Batch: 10, Seed: 1,
	}
}

// Step is one scripted command.
type Step struct {
	Line int
	Cmd  string            // the command word
	Args []string          // positional arguments
	KV   map[string]string // key=value arguments
}

func (s Step) String() string {
	parts := append([]string{s.Cmd}, s.Args...)
	for _, k := range sortedKeys(s.KV) {
		parts = append(parts, k+"="+s.KV[k])
	}
	return strings.Join(parts, " ")
}

// Expect is one expected outcome: a figure of a pipeline's oracle compared
// with a number.
type Expect struct {
	Line     int
	Variant  string // "" for the scene as written, else the variant it is about
	Pipeline string // naive | outbox
	Figure   string
	Op       string // == != >= <= > <
	Value    int64
}

func (e Expect) String() string {
	s := fmt.Sprintf("%s %s %s %d", e.Pipeline, e.Figure, e.Op, e.Value)
	if e.Variant != "" {
		s = "variant=" + e.Variant + " " + s
	}
	return s
}

// Holds reports whether got satisfies the expectation.
func (e Expect) Holds(got int64) bool {
	switch e.Op {
	case "==":
		return got == e.Value
	case "!=":
		return got != e.Value
	case ">=":
		return got >= e.Value
	case "<=":
		return got <= e.Value
	case ">":
		return got > e.Value
	case "<":
		return got < e.Value
	}
	return false
}

// Pipelines lists the pipelines the settings run.
func (s Settings) Pipelines() []string {
	switch s.Mode {
	case Naive:
		return []string{string(Naive)}
	case Compare:
		return []string{string(Naive), string(Outbox)}
	}
	return []string{string(Outbox)}
}

// AllPipelines names every pipeline, naive first: the order the timeline,
// summaries and headers show them in.
func AllPipelines() []string { return Settings{Mode: Compare}.Pipelines() }

// ExpectVariants names the variants the scene's expectations are about, in
// the order they first appear.
func (sc *Scene) ExpectVariants() []string {
	var out []string
	for _, e := range sc.Expects {
		if e.Variant != "" && !slices.Contains(out, e.Variant) {
			out = append(out, e.Variant)
		}
	}
	return out
}
