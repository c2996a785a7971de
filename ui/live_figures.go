package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/outboxlab/outboxlab/deploy"
)

// liveFiguresKeys: the figures pane takes no keys; it follows the snapshot.
type liveFiguresKeys struct{}

func (liveFiguresKeys) ShortHelp() []key.Binding  { return nil }
func (liveFiguresKeys) FullHelp() [][]key.Binding { return nil }

// liveFiguresPane draws a deployment's Snapshot: the outbox and each
// consumer as the database counts them, and what JetStream holds.
type liveFiguresPane struct {
	st   *Styles
	keys liveFiguresKeys
	w, h int
	snap *deploy.Snapshot // nil before the first
}

func newLiveFiguresPane(st *Styles) liveFiguresPane { return liveFiguresPane{st: st} }

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

// View draws the figures, a label and its value a line.
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
		lines = append(lines, st.Figures.Label.Render(pad(l, labelW))+"  "+v)
	}
	lines = append(lines, "")
	head := []string{w.Word("per consumer"), w.Word("inbox"), w.Word("effects"), w.Word("dup. ignored")}
	nameW := lipgloss.Width(head[0])
	for _, c := range s.Consumers {
		nameW = max(nameW, len(c.Name))
	}
	cols := []int{nameW, max(lipgloss.Width(head[1]), 6), max(lipgloss.Width(head[2]), 7), max(lipgloss.Width(head[3]), 6)}
	row := func(cells []string) string {
		out := pad(cells[0], cols[0])
		for i := 1; i < len(cells); i++ {
			out += "  " + padLeft(cells[i], cols[i])
		}
		return out
	}
	lines = append(lines, st.Figures.Heading.Render(row(head)))
	for _, c := range s.Consumers {
		lines = append(lines, row([]string{c.Name, fmt.Sprint(c.Inbox), fmt.Sprint(c.Effects), fmt.Sprint(c.DuplicatesIgnored)}))
	}
	lines = append(lines, "")
	switch {
	case !s.BrokerRunning:
		lines = append(lines, st.Figures.Heading.Render("JetStream")+"  "+st.Figures.Bad.Render(w.Word("stopped: b starts it")))
	case s.Broker == nil:
		msg := w.Word("does not answer")
		if s.BrokerErr != nil {
			msg += ": " + s.BrokerErr.Error()
		}
		lines = append(lines, st.Figures.Heading.Render("JetStream")+"  "+st.Figures.Bad.Render(msg))
	default:
		lines = append(lines, st.Figures.Heading.Render("JetStream")+"  "+st.Live.Why.Render(s.Broker.Stream))
		lines = append(lines, st.Figures.Label.Render(w.T("stream messages (not acked by every consumer): %d", s.Broker.Messages)))
		for _, name := range deploy.Consumers {
			c := s.Broker.Consumers[name]
			lines = append(lines, st.Figures.Label.Render(w.T("%s: waiting %d, unacked %d, redelivered %d", name, c.Waiting, c.Unacked, c.Redelivered)))
		}
	}
	return p.fit(lines)
}

// fit cuts lines to the pane.
func (p liveFiguresPane) fit(lines []string) string {
	return strings.Join(fitLines(lines, p.w, p.h), "\n")
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
