package ui

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/internal/teadrive"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
	"github.com/outboxlab/outboxlab/ui/overlay/chooser"
	"github.com/outboxlab/outboxlab/ui/panetest"
)

// The frame scan reads the screen as the learner reads it: the whole frame
// render draws at a terminal size, styling stripped, after layout, panes,
// overlays and the help are drawn together. (The clipping check before it
// read the lesson pane's own lines and the named columns only, so a word
// cut anywhere else, a dialog wider than the screen or a help taller than
// it, was never seen.)

// scanSizes are the terminal sizes every frame is read at: the smallest
// the TUI supports, a middling one, and a common large one.
var scanSizes = [][2]int{{80, 24}, {100, 30}, {120, 40}}

// The kinds of fault the scan counts.
const (
	scanCut     = "cut word"       // a word ending in … where the screen cut it
	scanStray   = "stray …"        // an ellipsis not after a word: a line or a key list cut
	scanBorder  = "missing border" // a box drawn without one of its sides
	scanBottom  = "cut at bottom"  // lines the learner must read pushed off the screen
	scanPane    = "named pane missing"
	scanEnglish = "English on es"
)

var scanKinds = []string{scanCut, scanStray, scanBorder, scanBottom, scanPane, scanEnglish}

// frameScan gathers what the scan found, by kind, size and language, with
// a few examples of each (lessons play side by side: it is shared).
type frameScan struct {
	mu       sync.Mutex
	frames   int
	counts   map[string]int
	examples map[string][]string
}

func newFrameScan() *frameScan {
	return &frameScan{counts: map[string]int{}, examples: map[string][]string{}}
}

func scanKey(kind, lang string, w, h int) string {
	return fmt.Sprintf("%s|%s|%dx%d", kind, lang, w, h)
}

func (f *frameScan) add(lang string, w, h int, found []finding, where string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.frames++
	for _, x := range found {
		k := scanKey(x.kind, lang, w, h)
		f.counts[k]++
		if len(f.examples[k]) < 40 {
			f.examples[k] = append(f.examples[k], where+": "+x.what)
		}
	}
}

// total is how many faults of a kind were found, over sizes and languages.
func (f *frameScan) total(kind string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for k, c := range f.counts {
		if strings.HasPrefix(k, kind+"|") {
			n += c
		}
	}
	return n
}

// table is the counts as a table: a row per kind, a column per language
// and size.
func (f *frameScan) table() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "%d frames\n%-20s", f.frames, "kind")
	for _, lang := range []string{"en", "es"} {
		for _, s := range scanSizes {
			fmt.Fprintf(&b, " %9s", fmt.Sprintf("%s %dx%d", lang, s[0], s[1]))
		}
	}
	b.WriteString("\n")
	for _, kind := range scanKinds {
		fmt.Fprintf(&b, "%-20s", kind)
		for _, lang := range []string{"en", "es"} {
			for _, s := range scanSizes {
				fmt.Fprintf(&b, " %9d", f.counts[scanKey(kind, lang, s[0], s[1])])
			}
		}
		b.WriteString("\n")
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range f.examples {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		for _, e := range f.examples[k] {
			fmt.Fprintf(&b, "  %s: %s\n", k, e)
		}
	}
	return b.String()
}

// report logs the table and fails the test on any fault of the kinds
// strict lists (the kinds the screen is held to).
func (f *frameScan) report(t *testing.T, strict ...string) {
	t.Helper()
	f.reportWithin(t, nil, strict...)
}

// reportWithin is report with a ceiling for some kinds: the faults known
// and left (lessonScanCeilings), so that a new one fails the test while
// those are fixed one by one.
func (f *frameScan) reportWithin(t *testing.T, ceilings map[string]int, strict ...string) {
	t.Helper()
	t.Logf("frame scan:\n%s", f.table())
	for _, kind := range strict {
		if n := f.total(kind); n > 0 {
			t.Errorf("frame scan: %d × %s", n, kind)
		}
	}
	for kind, most := range ceilings {
		if n := f.total(kind); n > most {
			t.Errorf("frame scan: %d × %s, more than the %d known (the table's examples say where)", n, kind, most)
		}
	}
}

// lessonScanCeilings are the cuts the lessons' frames may still have, over
// both languages and the three sizes: a text column of the outbox wider
// than the pane when its rows do not all fit wrapped (lanes' parked
// reason), a timeline entry longer than its eight lines. Any new cut
// repeats over many frames and goes past them.
var lessonScanCeilings = map[string]int{scanCut: 16, scanStray: 8}

// finding is one fault in a frame.
type finding struct{ kind, what string }

// frameAt is m's screen at w×h as the learner reads it, drawn on a copy:
// the model the test drives stays at its size, and nothing is read from
// the database (the tables pane shows the rows it holds).
func frameAt(m Model, w, h int) (Model, string) {
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	mm := next.(Model)
	return mm, panetest.Plain(mm.render())
}

// scanModel reads m's screen at every scan size and records what is wrong.
func (f *frameScan) scanModel(m Model, lang, where string) {
	f.scanAt(m, lang, where, scanSizes)
}

// scanAt reads m's screen at the sizes given.
func (f *frameScan) scanAt(m Model, lang, where string, sizes [][2]int) {
	for _, s := range sizes {
		mm, frame := frameAt(m, s[0], s[1])
		f.add(lang, s[0], s[1], scanFrame(mm, frame, lang), fmt.Sprintf("%s at %dx%d", where, s[0], s[1]))
	}
}

// scanFrame lists the faults in one frame of mm.
func scanFrame(mm Model, frame, lang string) []finding {
	var out []finding
	lines := strings.Split(frame, "\n")
	for _, line := range underDialogs(lines) {
		out = append(out, ellipses(line)...)
	}
	out = append(out, borders(lines)...)
	out = append(out, bottomCuts(mm)...)
	out = append(out, namedPaneMissing(mm, frame)...)
	if lang == "es" {
		out = append(out, englishOn(frame)...)
	}
	return out
}

// underDialogs is the frame with an ellipsis right left of a dialog's box
// blanked: the text beneath the dialog is cut by its box, not by the
// screen (…0000000a│ is an id's tail the box covers).
func underDialogs(lines []string) []string {
	grid := make([][]rune, len(lines))
	for i, l := range lines {
		grid[i] = []rune(l)
	}
	for y, row := range grid {
		for x, r := range row {
			if r != '╭' {
				continue
			}
			for yy := y; yy < len(grid); yy++ {
				if x > 0 && x-1 < len(grid[yy]) && grid[yy][x-1] == '…' {
					grid[yy][x-1] = ' '
				}
				if x < len(grid[yy]) && grid[yy][x] == '╰' {
					break
				}
			}
		}
	}
	out := make([]string, len(grid))
	for i, row := range grid {
		out[i] = string(row)
	}
	return out
}

// meantEllipses are the texts that end in an ellipsis of their own: a
// check being read, a dialog that asks for more, a message still coming.
// Each is taken from the catalog, in both languages, so a translation of
// one is not counted as a cut.
var meantEllipses = sync.OnceValue(func() []string {
	var out []string
	for _, m := range catalog.Translated() {
		for _, s := range m {
			for _, w := range strings.Fields(s) {
				if strings.HasSuffix(w, "…") && len(w) > len("…") {
					out = append(out, strings.Trim(w, "(),.:"))
				}
			}
		}
	}
	out = append(out, "checking…", "comprobando…", "by…")
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return slices.Compact(out)
})

// idTail is an id shown by its last hex digits (…deb1bbf2): the
// abbreviation the timeline, the story and the tables write ids in (the
// tables' title says so when it abbreviates one), or by its first ones
// (0190f5a2…, the fixtures' examples).
var idTail = regexp.MustCompile(`…[0-9a-f]{4,}|\b[0-9a-f]{8}…`)

// ellipses finds the ellipses a line has that the screen put there by
// cutting: after a word (a cut word), or anywhere else (a cut line).
func ellipses(line string) []finding {
	for _, m := range meantEllipses() {
		line = strings.ReplaceAll(line, m, "")
	}
	line = idTail.ReplaceAllString(line, "")
	var out []finding
	rs := []rune(line)
	for i, r := range rs {
		if r != '…' {
			continue
		}
		// The word the ellipsis ends, or the text before it.
		j := i
		for j > 0 && !unicode.IsSpace(rs[j-1]) {
			j--
		}
		ctx := strings.TrimSpace(string(rs[max(0, i-24):min(len(rs), i+8)]))
		if j < i && (unicode.IsLetter(rs[i-1]) || unicode.IsDigit(rs[i-1]) || strings.ContainsRune("_.)-'`", rs[i-1])) {
			out = append(out, finding{scanCut, ctx})
		} else {
			out = append(out, finding{scanStray, ctx})
		}
	}
	return out
}

// borders checks each rounded box on screen: a top corner has its other
// top corner, each row between has both sides, and the box has a bottom.
func borders(lines []string) []finding {
	grid := make([][]rune, len(lines))
	for i, l := range lines {
		grid[i] = []rune(l)
	}
	at := func(y, x int) rune {
		if y < 0 || y >= len(grid) || x < 0 || x >= len(grid[y]) {
			return 0
		}
		return grid[y][x]
	}
	var out []finding
	for y, row := range grid {
		for x, r := range row {
			if r != '╭' {
				continue
			}
			x1 := -1
			for i := x + 1; i < len(row); i++ {
				if row[i] == '╮' {
					x1 = i
					break
				}
				if row[i] != '─' {
					break
				}
			}
			if x1 < 0 {
				out = append(out, finding{scanBorder, fmt.Sprintf("box at row %d col %d has no top-right corner", y, x)})
				continue
			}
			bottom := false
			for yy := y + 1; yy < len(grid); yy++ {
				if at(yy, x) == '╰' {
					if at(yy, x1) != '╯' {
						out = append(out, finding{scanBorder, fmt.Sprintf("box at row %d: bottom-right corner missing", y)})
					}
					bottom = true
					break
				}
				if at(yy, x) != '│' || at(yy, x1) != '│' {
					out = append(out, finding{scanBorder, fmt.Sprintf("box at row %d: side missing on row %d: %s", y, yy, strings.TrimSpace(string(grid[yy])))})
					bottom = true
					break
				}
			}
			if !bottom {
				out = append(out, finding{scanBorder, fmt.Sprintf("box at row %d has no bottom", y)})
			}
		}
	}
	return out
}

// bottomCuts finds text the learner must read that does not fit the
// screen's height: the full help's lines drawn past the bottom.
func bottomCuts(mm Model) []finding {
	if !mm.help.ShowAll {
		return nil
	}
	_, H := mm.size()
	l := mm.layout()
	lines := strings.Split(mm.helpView(), "\n")
	if lost := len(lines) - l.help.h; lost > 0 {
		return []finding{{scanBottom, fmt.Sprintf("help: %d of its %d lines below the screen (%d rows)", lost, len(lines), H)}}
	}
	return nil
}

// paneTitles are the titles of the data panes as the screen writes them.
var paneTitles = map[lessons.Pane]string{
	lessons.PaneGuarantees: "Guarantees", lessons.PaneTables: "Tables",
	lessons.PaneTimeline: "Timeline", lessons.PaneMetrics: "Metrics",
}

// namedPaneMissing says the pane the step names is not on screen, with
// nothing over the body.
func namedPaneMissing(mm Model, frame string) []finding {
	if mm.overlays.top() != 0 || mm.compareView || mm.help.ShowAll {
		return nil
	}
	p := mm.lesson.NamedPane()
	if p == lessons.PaneNone {
		return nil
	}
	title := regexp.MustCompile(`(?m)(^|│)(  |▸ )` + regexp.QuoteMeta(mm.st.Words.Word(paneTitles[p])) + `\b`)
	if !title.MatchString(frame) {
		return []finding{{scanPane, fmt.Sprintf("step %d names %s: not on screen", mm.lesson.Step()+1, p)}}
	}
	return nil
}

// stayEnglish are the words Spanish keeps (the glossary's), and the
// protocol and product names that are no language's.
var stayEnglish = []string{"outbox", "inbox", "relay", "relays", "broker", "lease", "leases", "ack", "dead", "letter",
	"checkpoint", "checkpoints", "worker", "payload", "payloads", "postgresql", "postgres", "psql", "sql", "http", "https",
	"api", "json", "nats", "jetstream", "outboxlab", "curl", "wal", "cdc", "otlp", "id", "ids", "url", "ok",
	"gc", "naive", "accounting", "notifications", "shipping", "writer", "timeout", "backoff", "jitter", "trace", "span",
	"spans", "tab", "enter", "esc", "pgup", "pgdn", "p50", "p99", "s24", "fifo", "zombie", "inbox_messages"}

// englishStates are the actor and entry states the pipeline, the dialogs
// and the timeline write: English words whatever else they are.
var englishStates = []string{"duplicate", "claimed", "version_gap", "effect_applied", "committed", "acked", "fault",
	"restart", "filtered", "pending", "published", "done", "steps", "crash", "crashed", "stalled", "idle", "parked",
	"blocked", "down", "up", "armed", "running", "paused"}

// englishWords is the detector's English: every word of the catalog's
// English keys that no Spanish message uses, the states above, less the
// words Spanish keeps and the course's own names (a lesson is opened by
// its name: `--lesson duplicate`).
var englishWords = sync.OnceValue(func() map[string]bool {
	spanish := map[string]bool{}
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && r != '_' })
	}
	for _, m := range catalog.Translated() {
		for _, w := range words(m[1]) {
			spanish[w] = true
		}
	}
	en := map[string]bool{}
	for _, m := range catalog.Translated() {
		for _, w := range words(m[0]) {
			if len(w) >= 2 && !spanish[w] {
				en[w] = true
			}
		}
	}
	for _, w := range englishStates {
		en[w] = true
	}
	for _, w := range stayEnglish {
		delete(en, w)
	}
	// Words that are Spanish too, or no language's (units, SQL).
	for _, w := range []string{"a", "e", "o", "y", "no", "se", "un", "me", "es", "de", "el", "la", "en", "lo", "mi", "si", "ms", "kb", "mb", "min",
		"total", "error", "final", "real", "general", "normal", "local", "global", "actual", "simple", "hash", "bytes",
		"select", "update", "insert", "delete", "where", "from", "set", "and", "or", "not", "null", "is", "now", "for", "skip", "locked", "limit", "order", "by",
		"returning", "values", "into", "begin", "commit", "rollback", "on", "conflict", "do", "nothing", "as", "in", "case", "when", "then", "else", "end"} {
		delete(en, w)
	}
	return en
})

// statesMarked are the marks the pipeline draws before an actor's state.
const statesMarked = "●○✗‖◷⚑"

// englishToken is a word as the screen writes it: letters, and the
// underscore of a state written as code (version_gap).
var englishToken = regexp.MustCompile(`[\p{L}_]+`)

// englishOn lists English words on a Spanish frame. A word joined to a
// dot, a hyphen or a digit is code or a name (relay.published, relay-1),
// as is a SQL keyword (all capitals) and a lesson's or scene's name
// unless the pipeline draws it as a state (● duplicate).
func englishOn(frame string) []finding {
	en := englishWords()
	names := courseNames()
	var out []finding
	for _, line := range strings.Split(frame, "\n") {
		for _, loc := range englishToken.FindAllStringIndex(line, -1) {
			w := line[loc[0]:loc[1]]
			if codeAround(line, loc[0], loc[1]) {
				continue
			}
			if strings.ToUpper(w) == w && len(w) > 1 {
				continue // SQL, an acronym
			}
			lw := strings.ToLower(w)
			if !en[lw] {
				continue
			}
			before := strings.TrimRight(line[:loc[0]], " ")
			marked := before != "" && strings.ContainsRune(statesMarked, []rune(before)[len([]rune(before))-1])
			if names[lw] && !marked {
				continue
			}
			out = append(out, finding{scanEnglish, strings.TrimSpace(line[max(0, loc[0]-20):min(len(line), loc[1]+20)])})
		}
	}
	return out
}

// codeAround says the word at line[i:j] is part of code or a name: joined
// to a dot, a hyphen, a slash, an @ or a digit on either side (a sentence's
// full stop, followed by a space, is no join).
func codeAround(line string, i, j int) bool {
	joins := func(b byte) bool { return strings.IndexByte(".-/@=_", b) >= 0 || b >= '0' && b <= '9' }
	if i > 0 && joins(line[i-1]) {
		return true
	}
	return j+1 < len(line) && joins(line[j]) && line[j+1] != ' '
}

// courseNames are the lessons' and scenes' names: identifiers the
// learner types, in no language.
var courseNames = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, lang := range lessons.Langs {
		course, _ := lessons.Load(lang)
		for _, l := range course {
			out[l.Name] = true
		}
	}
	all, _ := scenes.Builtin()
	for _, s := range all {
		out[s.Name] = true
	}
	return out
})

// scanEnds are the sizes a step's screen is read at: all three on a
// lesson's first step, else the smallest and the largest, where its
// layouts differ (100×30 lays a lesson out as 80×24 does, taller).
func scanEnds(all bool) [][2]int {
	if all {
		return scanSizes
	}
	return [][2]int{scanSizes[0], scanSizes[2]}
}

// tourKeys are the dialogs and overlays a frame scan opens at a step, each
// from the step's own screen: the help, the crash, stall, move and clock
// dialogs, and the second screen of the first actor's and of each crashed
// or stalled one's (restart, resume).
func tourKeys(m Model, all bool) [][]string {
	out := [][]string{{"?"}}
	if all {
		out = append(out, []string{"c"}, []string{"m"}, []string{"s"}, []string{"T"}, []string{"c", "1"}, []string{"m", "1"})
	}
	for i, a := range chooser.Actors(m.actors) {
		if i > 0 && i < 9 && (a.View.State == sim.Crashed || a.View.State == sim.Stalled) {
			out = append(out, []string{"c", fmt.Sprint(i + 1)}, []string{"s", fmt.Sprint(i + 1)})
		}
	}
	if m.settings.Mode == scenes.Compare {
		out = append(out, []string{"v"})
	}
	return out
}

// scanTour reads the step's screen and each dialog and overlay opened
// from it, on copies of the model (no key reaches the simulation). The
// screen is read at every size; every dialog at every size when all is
// set, else the help and a crashed or stalled actor's dialog at the
// smallest only, where they are cut first (a frame costs about 15 ms under
// -race, and a lesson's steps show the same dialogs: the scan's CPU is
// taken from the lessons playing beside it).
func (f *frameScan) scanTour(m Model, lang, where string, all bool) {
	sizes := scanSizes
	if !all {
		sizes = scanSizes[:1]
	}
	f.scanAt(m, lang, where, scanEnds(all))
	for _, keys := range tourKeys(m, all) {
		mm := m
		for _, k := range keys {
			next, _ := mm.Update(teadrive.KeyPress(k))
			mm = next.(Model)
		}
		at := where + " [" + strings.Join(keys, " ") + "]"
		for _, s := range sizes {
			mf, frame := frameAt(mm, s[0], s[1])
			f.add(lang, s[0], s[1], scanFrame(mf, frame, lang), fmt.Sprintf("%s at %dx%d", at, s[0], s[1]))
		}
	}
}

// The free simulator's screens, in both languages at every scan size: the
// first screen, its dialogs and help, and the / list of lessons and scenes.
// No database: the fixture model's figures.
func TestFrameScanFreeSimulator(t *testing.T) {
	scan := newFrameScan()
	for _, lang := range []string{"en", "es"} {
		m := fixtureModelIn(t, 120, 40, "", 3, lang)
		m.sim = &sim.Sim{} // keys that need a simulation are enabled; nothing calls it here
		m.updateKeys()
		scan.scanTour(m, lang, lang+"/free", true)
		mm := send(t, m, teadrive.KeyPress("/"))
		scan.scanModel(mm, lang, lang+"/free [/]")
		// Compare mode, and its view (v).
		c := fixtureModelIn(t, 120, 40, "compare", 3, lang)
		c.sim = &sim.Sim{}
		c.updateKeys()
		scan.scanTour(c, lang, lang+"/compare", true)
	}
	// English on a Spanish frame: what is left is a dialog drawn over a
	// pane, cropping a Spanish word to English letters ("naive  per│").
	scan.reportWithin(t, map[string]int{scanEnglish: 8}, scanCut, scanStray, scanBorder, scanBottom, scanPane)
}
