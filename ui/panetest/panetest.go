package panetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/engine"
	goldenfile "github.com/outboxlab/outboxlab/internal/golden"
	"github.com/outboxlab/outboxlab/internal/testrun"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/sim"
)

// Golden compares a view, ANSI stripped and trailing spaces trimmed, with
// testdata/name.golden.
func Golden(t *testing.T, name, view string) {
	t.Helper()
	compareGolden(t, name, filepath.Join("testdata", name+".golden"), Plain(view), "%s")
}

// GoldenANSI is Golden with the colours kept: for panes where colour
// carries the meaning (a red violation, a green ✓), a change of colour is a
// change of what the screen says. The file holds the escapes as they are.
func GoldenANSI(t *testing.T, name, view string) {
	t.Helper()
	lines := strings.Split(view, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	compareGolden(t, name, filepath.Join("testdata", name+".ansi.golden"), strings.Join(lines, "\n")+"\n", "%q")
}

// compareGolden writes got to path under -update, else compares them; show
// formats each side of a difference.
func compareGolden(t *testing.T, name, path, got, show string) {
	t.Helper()
	goldenfile.Check(t, path, got, func(got, want string) string { return name + ": " + goldenfile.Full(show)(got, want) })
}

// Plain is a view as a golden file holds it: ANSI stripped, trailing
// spaces trimmed, a newline at the end.
func Plain(view string) string {
	lines := strings.Split(ansi.Strip(view), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// Styles are the dark background's styles, as the goldens are drawn.
func Styles() *screen.Styles {
	st := screen.Default(true)
	return &st
}

// StylesIn are Styles with the words of language lang.
func StylesIn(lang string) *screen.Styles {
	st := Styles()
	st.Words = catalog.For(lang)
	return st
}

// t0 is the fixtures' first instant.
var t0 = sim.Epoch

// Actors are a crash-after-publish run's actors, caught after the relay's
// restart: the fixtures every pane and screen golden draws.
func Actors() []sim.ActorView {
	return []sim.ActorView{
		{Pipeline: "outbox", Name: "api", State: sim.Idle},
		{Pipeline: "outbox", Name: "relay-1", State: sim.Paused, At: engine.RelayPublished},
		{Pipeline: "outbox", Name: "relay-2", State: sim.Crashed, At: engine.RelayClaimed},
		{Pipeline: "outbox", Name: "accounting", State: sim.Paused, At: engine.ConsumerDuplicate},
		{Pipeline: "outbox", Name: "notifications", State: sim.Stalled, At: engine.ConsumerInboxInserted, Armed: []string{"crash at consumer.acked"}},
		{Pipeline: "outbox", Name: "broker", State: sim.Idle},
	}
}

// CompareActors are Actors with the naive pipeline beside them.
func CompareActors() []sim.ActorView {
	return append([]sim.ActorView{
		{Pipeline: "naive", Name: "naive", State: sim.Crashed, At: engine.NaiveCommitted},
		{Pipeline: "naive", Name: "accounting", State: sim.Idle},
		{Pipeline: "naive", Name: "notifications", State: sim.Idle},
		{Pipeline: "naive", Name: "broker", State: sim.Down},
	}, Actors()...)
}

// Oracles are both pipelines' oracles: a lost event on the naive side.
func Oracles() []sim.Oracle {
	return []sim.Oracle{
		{Pipeline: "naive", Payments: 1, LostEvents: 1, LostExample: "0190f5a2-7c1e-7000-8000-00000000000a", Crashes: 1},
		{Pipeline: "outbox", Payments: 1, OutboxRows: 1, Published: 1, Publishes: 2, Deliveries: 4,
			DuplicatesDelivered: 2, DuplicatesIgnored: 2, Effects: 2, LedgerEntries: 1, Notifications: 1,
			Crashes: 1, MaxAttempts: 2, Pending: 1, OldestPendingAge: 31 * time.Second},
	}
}

// BadOracle is an outbox oracle with every violation it can show.
func BadOracle() []sim.Oracle {
	return []sim.Oracle{{Pipeline: "outbox", Payments: 2, OutboxRows: 2, Published: 2, Publishes: 3, Deliveries: 6,
		DuplicatesDelivered: 2, Effects: 5, DuplicateEffects: 1, DuplicateExample: "0190f5a2-7c1e-7000-8000-0000000000bb",
		PhantomEffects: 2, PhantomExample: "0190f5a2-7c1e-7000-8000-0000000000cc",
		SuppressedEffects: 1, SuppressedExample: "0190f5a2-7c1e-7000-8000-0000000000dd"}}
}

// Entries are the run's timeline: a payment, its claim, the crash.
func Entries() []sim.Entry {
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	return []sim.Entry{
		{Seq: 1, At: at(0), Actor: "client", Kind: "command", Explain: "a client asks for a 12.50 EUR payment (payment 0190f5a2…, event 0190f5a3…)",
			Say: &sim.Text{Key: "a client asks for a %s payment (payment %s, event %s%s)", Args: []any{"12.50 EUR", "0190f5a2…", "0190f5a3…", ""}}},
		{Seq: 2, At: at(1), Pipeline: "outbox", Actor: "api", Kind: "checkpoint", Checkpoint: "api.inserted", Statement: "insert_outbox", SQL: "INSERT INTO outbox_messages (id, aggregate_type)\nVALUES ($1, $2)", Rows: 1, Explain: "api inserted payment …0190f5a2 and its outbox row …0190f5a3 in one transaction, not committed yet: a crash now leaves neither",
			Say: &sim.Text{Key: "%s inserted payment %s and its outbox row %s in one transaction, not committed yet: a crash now leaves neither", Args: []any{"api", "…0190f5a2", "…0190f5a3"}}},
		{Seq: 3, At: at(2), Pipeline: "outbox", Actor: "api", Kind: "checkpoint", Checkpoint: "api.committed", Statement: "commit", SQL: "COMMIT", Explain: "api committed payment …0190f5a2 and event …0190f5a3 together: from now on the event cannot be lost",
			Say: &sim.Text{Key: "%s committed payment %s and event %s together: from now on the event cannot be lost", Args: []any{"api", "…0190f5a2", "…0190f5a3"}}},
		{Seq: 4, At: at(3), Pipeline: "outbox", Actor: "relay-1", Kind: "checkpoint", Checkpoint: "relay.claimed", Statement: "claim_batch", SQL: "WITH ready AS (\n  SELECT id FROM outbox_messages\n  FOR UPDATE SKIP LOCKED\n)\nUPDATE outbox_messages SET lock_id = $1", Rows: 1, MessageIDs: []string{"0190f5a3-0000-7000-8000-000000000001"}, Explain: "relay-1 leased 1 row with FOR UPDATE SKIP LOCKED and committed the claim (1 leased until 12:00:30.000): …00000001",
			Say: &sim.Text{Key: "%s leased %d row(s) with FOR UPDATE SKIP LOCKED and committed the claim%s: %s", Args: []any{"relay-1", 1, sim.Text{Key: " (%s)", Args: []any{sim.Text{Key: "%d leased until %s", Args: []any{1, "12:00:30.000"}}}}, "…00000001"}}},
		{Seq: 5, At: at(4), Pipeline: "outbox", Actor: "relay-1", Kind: "crash", Checkpoint: "relay.published", Explain: "relay-1 crashed at relay.published: its connection closed without COMMIT; its lease stays in the table until 12:00:30, then a relay reclaims the row and publishes it again (same id)",
			Say: &sim.Text{Key: "%s crashed at %s: its connection closed without COMMIT; its lease stays in the table until %s, then a relay reclaims the row and publishes it again (same id)", Args: []any{"relay-1", "relay.published", "12:00:30"}}},
		{Seq: 6, At: at(31004), Actor: "clock", Kind: "clock", Explain: "the clock moves 31s forward, to 12:00:31",
			Say: &sim.Text{Key: "the clock moves %s forward, to %s", Args: []any{"31s", "12:00:31"}}},
		{Seq: 7, At: at(31005), Pipeline: "outbox", Actor: "accounting", Kind: "checkpoint", Checkpoint: "consumer.duplicate", Statement: "insert_inbox", Rows: 0, Delivery: 2, Explain: "accounting ignores duplicate …00000001: it commits and ACKs, no second effect",
			Say: &sim.Text{Key: "%s ignores duplicate %s: it commits and ACKs, no second effect", Args: []any{"accounting", "…00000001"}}},
	}
}

// Table is the run's outbox_messages, two rows.
func Table() sim.Table {
	return sim.Table{
		Name:    "outbox_messages",
		Columns: []string{"id", "aggregate", "ver", "att", "lock", "lease until", "next attempt", "published", "dead", "last error"},
		Rows: [][]string{
			{"0190f5a3", "0190f5a2", "1", "2", "-", "-", "12:00:00", "12:00:31", "-", ""},
			{"0190f5a4", "0190f5a2", "2", "1", "7c1e0001", "12:01:01", "12:00:31", "-", "-", ""},
		},
		Keys:   []string{"k1", "k2"},
		Total:  2,
		Offset: 0,
	}
}

// Main runs a pane package's tests in colour whatever the shell says (the
// goldens are drawn as a colour terminal draws them), and ends as every
// TestMain does (testrun.Exit).
func Main(m *testing.M) {
	os.Unsetenv("NO_COLOR")
	testrun.Exit(m.Run())
}

// Lesson is the lesson named in the course of lang, and the whole course.
func Lesson(t testing.TB, lang, name string) (*lessons.Lesson, []*lessons.Lesson) {
	t.Helper()
	all, err := lessons.Load(lang)
	if err != nil {
		t.Fatal(err)
	}
	l, err := lessons.Find(all, name)
	if err != nil {
		t.Fatal(err)
	}
	return l, all
}
