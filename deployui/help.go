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
	for _, k := range m.keys.explained(w) {
		for i, l := range wrapStyled(st.App.Notice, k.says, m.w-4) {
			head := "    "
			if i == 0 {
				head = st.Help.ShortKey.Render(fmt.Sprintf("%-2s", k.b.Help().Key)) + "  "
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
