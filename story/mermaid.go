package story

import (
	"fmt"
	"strings"

	"github.com/outboxlab/outboxlab/catalog"
)

// Mermaid writes a story as a Mermaid sequenceDiagram in English: see
// MermaidIn.
func Mermaid(s Story) string { return MermaidIn(s, english) }

// MermaidIn writes a story as a Mermaid sequenceDiagram a trainer pastes into
// slides, its labels in the printer's language: the participants under short
// aliases, an arrow per statement or delivery (dashed for answers and ACKs,
// ending in a cross when it failed), notes for crashes, duplicates, leases
// and faults, the clock as a note over everyone, and the outcome at the end.
// The comment on its second line stays English: no slide shows it.
func MermaidIn(s Story, p *catalog.Printer) string {
	if p == nil {
		p = english
	}
	var b strings.Builder
	b.WriteString("sequenceDiagram\n")
	fmt.Fprintf(&b, "    %%%% outboxlab: message %s", s.Message)
	if s.Payment != "" {
		fmt.Fprintf(&b, ", payment %s", s.Payment)
	}
	fmt.Fprintf(&b, ", %s pipeline\n", s.Pipeline)
	alias := aliases(s.Participants)
	for _, p := range s.Participants {
		kind := "participant"
		if p == Client {
			kind = "actor"
		}
		fmt.Fprintf(&b, "    %s %s as %s\n", kind, alias[p], escape(p))
	}
	everyone := ""
	if n := len(s.Participants); n > 0 {
		everyone = alias[s.Participants[0]]
		if n > 1 {
			everyone += "," + alias[s.Participants[n-1]]
		}
	}
	for _, e := range s.Events {
		label := e.Label.In(p)
		switch e.Shape {
		case Arrow:
			fmt.Fprintf(&b, "    %s->>%s: %s\n", alias[e.From], alias[e.To], escape(label))
		case Reply:
			fmt.Fprintf(&b, "    %s-->>%s: %s\n", alias[e.From], alias[e.To], escape(label))
		case Lost:
			fmt.Fprintf(&b, "    %s-x%s: %s\n", alias[e.From], alias[e.To], escape(label))
		case Note, Wreck:
			fmt.Fprintf(&b, "    Note over %s: %s\n", alias[e.From], escape(label))
		case Divider:
			if everyone != "" {
				fmt.Fprintf(&b, "    Note over %s: %s\n", everyone, escape(p.T("%s, at %s", label, e.At.Format("15:04:05.000"))))
			}
		}
	}
	for _, line := range s.Outcome {
		if everyone != "" {
			fmt.Fprintf(&b, "    Note over %s: %s\n", everyone, escape(line.In(p)))
		}
	}
	return b.String()
}

// knownAliases are the short names a slide shows in its arrows' source.
var knownAliases = map[string]string{
	Client: "C", "api": "API", "api-2": "API2", "naive": "NAIVE", PostgreSQL: "PG", Broker: "B",
	"relay-1": "R1", "relay-2": "R2", "accounting": "ACC", "accounting-2": "ACC2", "notifications": "NOTIF",
}

// aliases gives every participant a Mermaid id: letters and digits only,
// unique, never a keyword.
func aliases(ps []string) map[string]string {
	out := map[string]string{}
	used := map[string]bool{}
	for _, p := range ps {
		a := knownAliases[p]
		if a == "" {
			var b strings.Builder
			for _, r := range strings.ToUpper(p) {
				if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
					b.WriteRune(r)
				}
			}
			a = "P" + b.String()
		}
		base := a
		for i := 2; used[a]; i++ {
			a = fmt.Sprintf("%s%d", base, i)
		}
		used[a] = true
		out[p] = a
	}
	return out
}

// escape keeps a text from ending the line or the message early: Mermaid
// reads ; as a line break and # as the start of an entity, and < > as
// markup; each becomes an entity code.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case ';':
			b.WriteString("#59;")
		case '#':
			b.WriteString("#35;")
		case '<':
			b.WriteString("#lt;")
		case '>':
			b.WriteString("#gt;")
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
