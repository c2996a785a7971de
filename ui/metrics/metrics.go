package metrics

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/sim"
)

// MetricsMsg carries the S24 figures of each pipeline.
type MetricsMsg struct{ Metrics []sim.Metrics }

// OraclesMsg carries every pipeline's oracle: what the pane shows until
// the simulator reports the S24 figures.
type OraclesMsg struct{ Oracles []sim.Oracle }

// Pane shows the S24 figures of the outbox pipeline, the age of the
// oldest pending message first: the one figure that says the relay is behind.
// Until the simulator reports sim.Metrics it shows what the oracle knows.
type Pane struct {
	st      *screen.Styles
	w, h    int
	oracles []sim.Oracle
	metrics []sim.Metrics
}

// New is the pane before the first figures are read.
func New(st *screen.Styles) Pane { return Pane{st: st} }

// Update takes the figures the root read; the pane has no keys.
func (m Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case OraclesMsg:
		m.oracles = msg.Oracles
	case MetricsMsg:
		m.metrics = msg.Metrics
	}
	return m, nil
}

// SetSize is the room the page gives the pane.
func (m *Pane) SetSize(w, h int) { m.w, m.h = w, h }

// ShortHelp: the metrics pane has no keys of its own.
func (m Pane) ShortHelp() []key.Binding { return nil }

// FullHelp: the metrics pane has no keys of its own.
func (m Pane) FullHelp() [][]key.Binding { return nil }

// Height is what the pane needs.
func (m Pane) Height() int { return 1 + len(m.lines()) }

// View draws the figures, one a row.
func (m Pane) View() string {
	// Never drawn focused: the pane has no keys, so tab never lands on it.
	title := screen.PaneTitle(m.st, false, m.st.Words.T("Metrics"), "S24", m.w)
	return screen.Block(title+"\n"+strings.Join(m.lines(), "\n"), m.w, m.h)
}

func (m Pane) row(label, value string, bad bool) string {
	return m.rowBeside(label, value, bad, value)
}

// rowBeside is row for a value drawn beside others of its kind (the two
// latencies): the column gives way to the widest of them, so they stay
// aligned with each other.
func (m Pane) rowBeside(label, value string, bad bool, widest string) string {
	fs := m.st.Figures
	v := fs.Value.Render(value)
	if bad {
		v = fs.Bad.Render(value)
	}
	// One column for every label, one space past the longest in this
	// language (Spanish ones run longer than 28).
	col := 28
	for _, l := range metricLabels {
		col = max(col, ansi.StringWidth(m.st.Words.Word(l))+1)
	}
	// A value the column would push past the pane's edge (a latency's "p50
	// 1m2s p99 1m2s") pulls its own row's column in, down to its label: the
	// figure whole beats the alignment.
	word := m.st.Words.Word(label)
	if m.w > 0 {
		col = max(ansi.StringWidth(word)+1, min(col, m.w-1-max(ansi.StringWidth(value), ansi.StringWidth(widest))))
	}
	return " " + fs.Label.Render(screen.Pad(word, col)) + v
}

// metricLabels are the metrics pane's labels.
var metricLabels = []string{"oldest pending message age", "outbox_pending_total", "publishes per second", "attempts per message",
	"max attempts per message", "dead letters", "expired leases recovered", "inbox duplicates ignored",
	"occurred → published", "published → processed"}

func age(d time.Duration, pending int64) string {
	if pending == 0 {
		return "-"
	}
	return d.Round(time.Millisecond).String()
}

func (m Pane) lines() []string {
	for _, x := range m.metrics {
		if x.Pipeline == "outbox" {
			return m.metricLines(x)
		}
	}
	var o *sim.Oracle
	for i := range m.oracles {
		if m.oracles[i].Pipeline == "outbox" {
			o = &m.oracles[i]
		}
	}
	if o == nil {
		if len(m.oracles) > 0 {
			return []string{m.st.Pane.Empty.Render("  " + m.st.Words.T("the naive pipeline has no outbox to measure"))}
		}
		return []string{m.st.Pane.Empty.Render("  " + m.st.Words.T("waiting for the oracle…"))}
	}
	return []string{
		m.row("oldest pending message age", age(o.OldestPendingAge, o.Pending), o.OldestPendingAge > 60*time.Second),
		m.row("outbox_pending_total", num(o.Pending), false),
		m.row("max attempts per message", num(o.MaxAttempts), o.MaxAttempts > 1),
		m.row("dead letters", num(o.DeadLettered), o.DeadLettered > 0),
		m.row("expired leases recovered", num(o.LeasesRecovered), false),
		m.row("inbox duplicates ignored", num(o.DuplicatesIgnored), false),
	}
}

func (m Pane) metricLines(x sim.Metrics) []string {
	lat := func(l engine.LatencySummary) string {
		if l.Count == 0 {
			return "-"
		}
		return fmt.Sprintf("p50 %s p99 %s", l.P50.Round(time.Millisecond), l.P99.Round(time.Millisecond))
	}
	toPublished, toProcessed := lat(x.OccurredToPublished), lat(x.PublishedToProcessed)
	widest := toPublished
	if ansi.StringWidth(toProcessed) > ansi.StringWidth(widest) {
		widest = toProcessed
	}
	return []string{
		m.row("oldest pending message age", age(x.OldestPendingAge, x.OutboxPendingTotal), x.OldestPendingAge > 60*time.Second),
		m.row("outbox_pending_total", num(x.OutboxPendingTotal), false),
		m.row("publishes per second", m.st.Words.T("%.2f", x.PublishesPerSecond), false),
		m.row("attempts per message", m.st.Words.T("%.2f", x.AttemptsPerMessage), x.AttemptsPerMessage > 1),
		m.row("dead letters", num(x.DeadLetters), x.DeadLetters > 0),
		m.row("expired leases recovered", num(x.ExpiredLeasesRecovered), false),
		m.row("inbox duplicates ignored", num(x.InboxDuplicatesIgnored), false),
		m.rowBeside("occurred → published", toPublished, false, widest),
		m.rowBeside("published → processed", toProcessed, false, widest),
	}
}

func num(n int64) string { return fmt.Sprintf("%d", n) }
