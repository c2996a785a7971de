package deployui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/engine/jetstream"
	"github.com/outboxlab/outboxlab/screen"
)

// liveFiguresKeys: the figures pane takes no keys; it follows the snapshot.
type liveFiguresKeys struct{}

func (liveFiguresKeys) ShortHelp() []key.Binding  { return nil }
func (liveFiguresKeys) FullHelp() [][]key.Binding { return nil }

// liveFiguresPane draws a deployment's Snapshot: the outbox and each
// consumer as the database counts them, and what JetStream holds.
type liveFiguresPane struct {
	st   *screen.Styles
	keys liveFiguresKeys
	w, h int
	snap *deploy.Snapshot // nil before the first
}

func newLiveFiguresPane(st *screen.Styles) liveFiguresPane { return liveFiguresPane{st: st} }

func (p *liveFiguresPane) SetSize(w, h int) { p.w, p.h = w, h }

func (p liveFiguresPane) ShortHelp() []key.Binding  { return p.keys.ShortHelp() }
func (p liveFiguresPane) FullHelp() [][]key.Binding { return p.keys.FullHelp() }

// Update takes a snapshot read without error.
func (p liveFiguresPane) Update(msg tea.Msg) (liveFiguresPane, tea.Cmd) {
	if msg, ok := msg.(liveSnapshotMsg); ok && msg.err == nil {
		s := msg.snap
		p.snap = &s
	}
	return p, nil
}

// View draws the figures: the outbox's, a label and its value a line;
// then a table with a column per consumer, its inbox and effects as the
// database counts them and its backlog as JetStream does. Narrow panes
// wrap, never cut: the broker's error is said whole.
func (p liveFiguresPane) View() string {
	st, w := p.st, p.st.Words
	lines := []string{st.Pane.Title.Render(w.Word("Figures")) + " " + st.Live.Why.Render(w.Word("from the database"))}
	if p.snap == nil {
		lines = append(lines, st.Pane.Empty.Render(w.Word("reading the database…")))
		return p.fit(lines)
	}
	s := p.snap
	labels := []string{w.Word("payments"), w.Word("outbox pending"), w.Word("oldest pending"), w.Word("published"),
		w.Word("dead-lettered"), w.Word("retried")}
	values := []string{fmt.Sprint(s.Payments), fmt.Sprint(s.Pending), liveAge(s.OldestPendingAge), fmt.Sprint(s.Published),
		fmt.Sprint(s.Dead), fmt.Sprint(s.Retried)}
	labelW := 0
	for _, l := range labels {
		labelW = max(labelW, lipgloss.Width(l))
	}
	for i, l := range labels {
		v := st.Figures.Value.Render(values[i])
		if (i == 1 || i == 2) && s.Pending > 0 || i == 4 && s.Dead > 0 {
			v = st.Figures.Bad.Render(values[i])
		}
		lines = append(lines, st.Figures.Label.Render(screen.Pad(l, labelW))+"  "+v)
	}
	lines = append(lines, "")

	// One column per consumer: the pane is as narrow as its names, and a
	// row's label is said once for both.
	names := make([]string, len(s.Consumers))
	for i, c := range s.Consumers {
		names[i] = c.Name
	}
	rowLabels := []string{w.Word("per consumer"), w.Word("inbox"), w.Word("effects"), w.Word("dup. ignored"),
		w.Word("waiting"), w.Word("unacked"), w.Word("redelivered")}
	rowW := 0
	for _, l := range rowLabels {
		rowW = max(rowW, lipgloss.Width(l))
	}
	row := func(label string, cells []string) string {
		out := screen.Pad(label, rowW)
		for i, c := range cells {
			out += "  " + padLeft(c, max(lipgloss.Width(names[i]), 3))
		}
		return out
	}
	per := func(f func(deploy.ConsumerFigures) int64) []string {
		out := make([]string, len(s.Consumers))
		for i, c := range s.Consumers {
			out[i] = fmt.Sprint(f(c))
		}
		return out
	}
	lines = append(lines,
		st.Figures.Heading.Render(row(rowLabels[0], names)),
		row(rowLabels[1], per(func(c deploy.ConsumerFigures) int64 { return c.Inbox })),
		row(rowLabels[2], per(func(c deploy.ConsumerFigures) int64 { return c.Effects })),
		row(rowLabels[3], per(func(c deploy.ConsumerFigures) int64 { return c.DuplicatesIgnored })))

	wrap := func(style lipgloss.Style, text string) []string {
		var out []string
		for _, l := range strings.Split(ansi.Wrap(text, max(p.w, 8), " "), "\n") {
			out = append(out, style.Render(l))
		}
		return out
	}
	head := st.Figures.Heading.Render("JetStream")
	switch {
	case !s.BrokerRunning:
		lines = append(lines, head)
		lines = append(lines, wrap(st.Figures.Bad, w.Word("stopped: b starts it"))...)
	case s.Broker == nil:
		msg := w.Word("does not answer")
		if s.BrokerErr != nil {
			msg += ": " + s.BrokerErr.Error()
		}
		lines = append(lines, head)
		lines = append(lines, wrap(st.Figures.Bad, msg)...)
	default:
		lines = append(lines, wrap(st.Figures.Heading, w.T("JetStream: %d messages not acked by all", s.Broker.Messages))...)
		info := func(f func(jetstream.ConsumerInfo) int) []string {
			out := make([]string, len(names))
			for i, n := range names {
				out[i] = fmt.Sprint(f(s.Broker.Consumers[n]))
			}
			return out
		}
		lines = append(lines,
			row(rowLabels[4], info(func(c jetstream.ConsumerInfo) int { return c.Waiting })),
			row(rowLabels[5], info(func(c jetstream.ConsumerInfo) int { return c.Unacked })),
			row(rowLabels[6], info(func(c jetstream.ConsumerInfo) int { return c.Redelivered })))
	}
	return p.fit(lines)
}

// fit fits lines to the pane, blank ones going first when they are too
// many.
func (p liveFiguresPane) fit(lines []string) string {
	return strings.Join(screen.FitLines(squeezeBlank(lines, p.h), p.w, p.h), "\n")
}

// liveAge is a duration as the figures show it: - for none.
func liveAge(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

func padLeft(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}
