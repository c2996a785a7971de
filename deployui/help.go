package deployui

import (
	"fmt"
	"strings"
)

// helpLines are what ? shows instead of the panes: every key and what it
// does, the psql command of the database that holds the payments, what
// the figures count, and why this screen runs the engine for real; blank
// lines go first when they are more than h.
func (m Model) helpLines(h int) []string {
	st, w := m.st, m.st.Words
	lines := []string{st.Pane.Title.Render(w.Word("Help"))}
	keys := []struct{ key, says string }{
		{"p", w.Word("post a payment: the payment and its outbox row in one transaction")},
		{"P", w.Word("post 10 payments")},
		{"c", w.Word("crash an actor at its next checkpoint; its supervisor starts a new one a second later")},
		{"s", w.Word("stall an actor past AckWait: JetStream delivers its message again, and the inbox ignores the duplicate")},
		{"b", w.Word("stop or start the embedded JetStream: the outbox keeps what waits meanwhile")},
		{"?", w.Word("this help (? or esc closes it)")},
		{"q", w.Word("quit")},
	}
	for _, k := range keys {
		for i, l := range wrapStyled(st.App.Notice, k.says, m.w-4) {
			head := "    "
			if i == 0 {
				head = st.Help.ShortKey.Render(fmt.Sprintf("%-2s", k.key)) + "  "
			}
			lines = append(lines, head+l)
		}
	}
	lines = append(lines, "")
	if m.opts.PsqlURL != "" {
		lines = append(lines, wrapStyled(st.Figures.Heading, w.Word("the payments, outbox and inboxes are in PostgreSQL; look with"), m.w)...)
		lines = append(lines, wrapStyled(st.Figures.Value, "  psql '"+strings.ReplaceAll(m.opts.PsqlURL, "'", `'\''`)+"'", m.w)...)
		lines = append(lines, "")
	}
	for _, why := range append([]string{w.Word("JetStream's figures: messages in the stream not acked by every consumer yet (one acked by all leaves the stream a moment after its last ACK); per consumer, those waiting, delivered and not acked, and delivered more than once")}, m.why()...) {
		lines = append(lines, wrapStyled(st.Live.Why, why, m.w)...)
	}
	return squeezeBlank(lines, h)
}
