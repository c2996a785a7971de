package story

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The subset of Mermaid's sequenceDiagram grammar a story may use.
var (
	mmID    = `[A-Za-z][A-Za-z0-9_]*`
	mmDecl  = regexp.MustCompile(`^(participant|actor) (` + mmID + `)(?: as (.+))?$`)
	mmMsg   = regexp.MustCompile(`^(` + mmID + `)(-->>|->>|--x|-x|-->|->)(` + mmID + `): (.+)$`)
	mmNote  = regexp.MustCompile(`^Note (over|left of|right of) (` + mmID + `)(?:,(` + mmID + `))?: (.+)$`)
	mmOpen  = regexp.MustCompile(`^(rect|loop|alt|opt)( .*)?$`)
	mmElse  = regexp.MustCompile(`^else( .*)?$`)
	mmText  = regexp.MustCompile(`^(?:[^;#\n]|#[0-9]+;|#[a-z]+;)+$`)
	mmWords = map[string]bool{"end": true, "participant": true, "actor": true, "loop": true, "alt": true, "else": true, "opt": true, "rect": true, "note": true, "Note": true}
)

// parseMermaid checks a text against that subset: the first line is
// sequenceDiagram; every other line is a comment, a declaration, a message,
// a note or a block; every id is declared before it is used; texts hold no
// raw ; or # (Mermaid reads them as a line break and an entity); blocks
// close. It returns the declared ids in order.
func parseMermaid(src string) ([]string, error) {
	lines := strings.Split(strings.TrimRight(src, "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "sequenceDiagram" {
		return nil, fmt.Errorf("line 1: %q, want sequenceDiagram", lines[0])
	}
	var ids []string
	declared := map[string]bool{}
	use := func(n int, id string) error {
		if !declared[id] {
			return fmt.Errorf("line %d: %s is used but not declared", n, id)
		}
		return nil
	}
	text := func(n int, s string) error {
		if !mmText.MatchString(s) {
			return fmt.Errorf("line %d: text %q holds a raw ; or #", n, s)
		}
		return nil
	}
	depth := 0
	for i, raw := range lines[1:] {
		n := i + 2
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || strings.HasPrefix(line, "%%"):
		case mmDecl.MatchString(line):
			m := mmDecl.FindStringSubmatch(line)
			if mmWords[m[2]] || declared[m[2]] {
				return nil, fmt.Errorf("line %d: id %q is a keyword or declared twice", n, m[2])
			}
			if m[3] != "" {
				if err := text(n, m[3]); err != nil {
					return nil, err
				}
			}
			declared[m[2]] = true
			ids = append(ids, m[2])
		case mmMsg.MatchString(line):
			m := mmMsg.FindStringSubmatch(line)
			for _, id := range []string{m[1], m[3]} {
				if err := use(n, id); err != nil {
					return nil, err
				}
			}
			if err := text(n, m[4]); err != nil {
				return nil, err
			}
		case mmNote.MatchString(line):
			m := mmNote.FindStringSubmatch(line)
			if m[3] != "" && m[1] != "over" {
				return nil, fmt.Errorf("line %d: only Note over spans two participants", n)
			}
			for _, id := range []string{m[2], m[3]} {
				if id == "" {
					continue
				}
				if err := use(n, id); err != nil {
					return nil, err
				}
			}
			if err := text(n, m[4]); err != nil {
				return nil, err
			}
		case mmOpen.MatchString(line):
			depth++
		case mmElse.MatchString(line):
			if depth == 0 {
				return nil, fmt.Errorf("line %d: else outside a block", n)
			}
		case line == "end":
			if depth == 0 {
				return nil, fmt.Errorf("line %d: end with no block open", n)
			}
			depth--
		default:
			return nil, fmt.Errorf("line %d: %q is not part of the grammar", n, line)
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("%d block(s) not closed", depth)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no participant declared")
	}
	return ids, nil
}

// The checker itself refuses what Mermaid would: it is no test that cannot
// fail.
func TestMermaidCheckerRefuses(t *testing.T) {
	cases := map[string]string{
		"no header":        "participant A\nA->>A: x\n",
		"undeclared":       "sequenceDiagram\nparticipant A\nA->>B: x\n",
		"bad arrow":        "sequenceDiagram\nparticipant A\nparticipant B\nA=>B: x\n",
		"raw semicolon":    "sequenceDiagram\nparticipant A\nparticipant B\nA->>B: x; y\n",
		"raw hash":         "sequenceDiagram\nparticipant A\nNote over A: #1\n",
		"note undeclared":  "sequenceDiagram\nparticipant A\nNote over A,B: x\n",
		"left of two":      "sequenceDiagram\nparticipant A\nparticipant B\nNote left of A,B: x\n",
		"unclosed rect":    "sequenceDiagram\nparticipant A\nrect rgb(1,2,3)\nA->>A: x\n",
		"stray end":        "sequenceDiagram\nparticipant A\nend\n",
		"keyword id":       "sequenceDiagram\nparticipant end\n",
		"declared twice":   "sequenceDiagram\nparticipant A\nactor A\n",
		"empty message":    "sequenceDiagram\nparticipant A\nA->>A:\n",
		"free text":        "sequenceDiagram\nparticipant A\nthe broker delivers\n",
		"nothing declared": "sequenceDiagram\n",
	}
	for name, src := range cases {
		if _, err := parseMermaid(src); err == nil {
			t.Errorf("%s: the checker accepted\n%s", name, src)
		}
	}
	ok := "sequenceDiagram\n    %% c\n    actor C as client\n    participant B as broker\n    C->>B: a #59; b\n    B-->>C: ok\n    C-xB: lost\n    Note over C,B: n\n    rect rgb(255, 240, 200)\n    B->>C: again\n    end\n"
	if _, err := parseMermaid(ok); err != nil {
		t.Errorf("the checker refused a valid diagram: %v", err)
	}
}

// Characters Mermaid reads as syntax inside a message become entity codes.
func TestMermaidEscapes(t *testing.T) {
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := Story{
		Message: "m", Pipeline: "outbox", Participants: []string{Client, "api", "odd name;#"},
		Events: []Event{
			{At: at, Shape: Arrow, From: Client, To: "api", Label: verbatim("POST; #1 <b>")},
			{At: at, Shape: Note, From: "odd name;#", Label: verbatim("x;y")},
			{At: at, Shape: Divider, Label: say("clock +%s", "1s")},
		},
		Outcome: []Text{verbatim("a; b")},
	}
	out := Mermaid(s)
	ids, err := parseMermaid(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(ids) != 3 {
		t.Errorf("declared %v, want 3 participants", ids)
	}
	for _, want := range []string{"C->>API: POST#59; #35;1 #lt;b#gt;", "as odd name#59;#35;", "Note over C,PODDNAME: clock +1s, at 12:00:00.000", "Note over C,PODDNAME: a#59; b"} {
		if !strings.Contains(out, want) {
			t.Errorf("Mermaid output lacks %q:\n%s", want, out)
		}
	}
}
