package deployui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/engine"
)

// rightPane is the figures pane's text: each line's part after the
// panes' gutter, joined with spaces (a wrapped sentence reads whole).
func rightPane(screen string) string {
	var parts []string
	for _, l := range strings.Split(screen, "\n") {
		if _, right, ok := strings.Cut(l, " │ "); ok {
			parts = append(parts, strings.TrimSpace(right))
		}
	}
	return strings.Join(parts, " ")
}

// fitsWhole fails the test for a screen wider or taller than w×h, with
// "…" (something cut), or without one of want whole.
func fitsWhole(t *testing.T, what, screen string, w, h int, want []string) {
	t.Helper()
	var bad []string
	lines := strings.Split(strings.TrimSuffix(screen, "\n"), "\n")
	if len(lines) > h {
		bad = append(bad, fmt.Sprintf("%d lines at %d rows", len(lines), h))
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > w {
			bad = append(bad, fmt.Sprintf("line %d is %d wide at %d columns: %q", i, n, w, l))
		}
	}
	if strings.Contains(screen, "…") {
		bad = append(bad, "something is cut (…)")
	}
	for _, s := range want {
		if !strings.Contains(screen, s) {
			bad = append(bad, fmt.Sprintf("lacks %q", s))
		}
	}
	if len(bad) > 0 {
		t.Errorf("%s: %s:\n%s", what, strings.Join(bad, "; "), screen)
	}
}

// The live screen at 80×24 and 120×40, in English and Spanish, driven by
// keys: every figure's label and every footer key whole, nothing cut (no
// "…"), in the terminal's size; b stops the broker and every actor says
// it waits on the broker; the stream's dedup window, retention, AckWait
// and replicas are on the screen; ? shows the help with the psql command
// of the database that holds the payments, esc closes it; a broker's long
// error is wrapped whole in the figures. Before: at 80×24 the "dup.
// ignored" column, the JetStream lines and the b and q keys were cut, the
// broker's error was cut at the pane's edge, and the actors said
// "● running" while the broker was down.
func TestLiveScreenFitsByKeys(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "es"} {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			w, h := size[0], size[1]
			t.Run(fmt.Sprintf("%s %dx%d", lang, w, h), func(t *testing.T) {
				words := catalog.For(lang)
				d := newLiveDriver(t, lang, w, h)
				running := regexp.QuoteMeta(words.Word("● running"))
				d.WaitFor(`1 relay-1[^\n◌●]*(\n +)?` + running)
				d.Press("p")
				d.WaitFor(`(?s)` + regexp.QuoteMeta(words.Word("published")) + ` +1\n.*` + regexp.QuoteMeta(words.Word("effects")) + ` +1 +1\n`)
				d.WaitFor(regexp.QuoteMeta(words.T("JetStream: %d messages not acked by all", 0)))

				var labels []string
				for _, l := range []string{"Actors", "Figures", "from the database", "payments", "outbox pending", "oldest pending", "published",
					"dead-lettered", "retried", "per consumer", "inbox", "effects", "dup. ignored", "waiting", "unacked", "redelivered",
					"Stream", "dedup window", "retention", "replicas"} {
					labels = append(labels, words.Word(l))
				}
				labels = append(labels, "AckWait", "accounting", "notifications", "OUTBOXLAB_OUTBOX", "2s", words.Word(deploy.RetentionPurged))
				keys := []string{"p " + words.Word("post a payment"), "P " + words.Word("post 10"), "c " + words.Word("crash"),
					"s " + words.Word("stall past AckWait"), "b " + words.Word("stop/start the broker"), "? " + words.Word("help, psql"),
					"q " + words.Word("quit")}
				fitsWhole(t, "running", d.Screen(), w, h, append(labels, keys...))

				// The broker stopped: every actor waits on it.
				d.Press("b")
				d.WaitFor(regexp.QuoteMeta(words.Word("stopped: b starts it")))
				waiting := regexp.QuoteMeta(words.Word("◌ waiting on the broker"))
				d.WaitFor(`(?s)1 relay-1[^\n◌●]*(\n +)?` + waiting + `.*2 accounting[^\n◌●]*(\n +)?` + waiting + `.*3 notifications[^\n◌●]*(\n +)?` + waiting)
				if strings.Contains(d.Screen(), words.Word("● running")) {
					t.Errorf("an actor runs with the broker stopped:\n%s", d.Screen())
				}
				fitsWhole(t, "broker stopped", d.Screen(), w, h, keys)

				// ? shows the help and the psql command, whole; esc closes it.
				d.Press("?")
				psql := "psql '" + d.M.opts.PsqlURL + "'"
				screen := d.Screen()
				if joined := strings.Join(strings.Fields(screen), ""); !strings.Contains(joined, strings.ReplaceAll(psql, " ", "")) {
					t.Errorf("the help lacks %q:\n%s", psql, screen)
				}
				fitsWhole(t, "help", screen, w, h, []string{words.Word("Help"), "?/esc " + words.Word("close"), "q " + words.Word("quit")})
				// ↓ reaches the help's last sentence, whatever the height
				// (at 80×24 its end was drawn under the footer: cut).
				for range 40 {
					d.Press("down")
				}
				last := strings.Join(strings.Fields(words.Word("the step-by-step simulator keeps the in-process broker: only it waits on a virtual clock")), " ")
				if got := strings.Join(strings.Fields(d.Screen()), " "); !strings.Contains(got, last) {
					t.Errorf("↓ does not reach the help's end %q:\n%s", last, d.Screen())
				}
				fitsWhole(t, "help scrolled", d.Screen(), w, h, []string{"?/esc " + words.Word("close"), "q " + words.Word("quit")})
				for range 40 {
					d.Press("up")
				}
				if !strings.Contains(d.Screen(), words.Word("Help")) {
					t.Errorf("↑ does not bring the help's title back:\n%s", d.Screen())
				}
				d.Press("esc")
				if strings.Contains(d.Screen(), words.Word("Help")+"\n") || !strings.Contains(d.Screen(), "p "+words.Word("post a payment")) {
					t.Errorf("esc did not close the help:\n%s", d.Screen())
				}
				d.Press("b")
				d.WaitFor(`1 relay-1[^\n◌●]*(\n +)?` + running)

				// A broker at a URL that does not answer, with a long error:
				// said whole, wrapped in the figures' pane.
				long := fmt.Errorf("stream info OUTBOXLAB_LIVE: %w (nats: timeout: no response from the stream's leader at any of nats://10.0.0.1:4222, nats://10.0.0.2:4222, nats://10.0.0.3:4222 within 2s)", engine.ErrBrokerDown)
				snap := *d.M.figures.snap
				snap.Broker, snap.BrokerErr, snap.BrokerRunning = nil, long, true
				d.Handle(liveSnapshotMsg{seq: d.M.applied, snap: snap, actors: d.M.actors.actors})
				want := words.Word("does not answer") + ": " + long.Error()
				if got := rightPane(d.Screen()); !strings.Contains(got, want) {
					t.Errorf("the broker's error is not whole in the figures:\n%s\nwant %q", d.Screen(), want)
				}
				// And the header marks it, beside the broker's name.
				if top := strings.Join(strings.SplitN(d.Screen(), "\n", 4)[:3], "\n"); !strings.Contains(top, "("+words.Word("does not answer")+")") {
					t.Errorf("the header does not mark the broker down:\n%s", d.Screen())
				}
				fitsWhole(t, "broker error", d.Screen(), w, h, keys)
			})
		}
	}
}

// The header wraps at its separators, and an item wider than the screen
// (a broker at a list of NATS URLs) on lines of its own: nothing is cut.
func TestLiveHeaderWrapsWhole(t *testing.T) {
	items := []string{"outboxlab live", "broker NATS JetStream at nats://10.0.0.1:4222,nats://10.0.0.2:4222,nats://10.0.0.3:4222,nats://10.0.0.4:4222", "api http://127.0.0.1:18200"}
	lines := joinWrapped(items, " │ ", 80)
	got := strings.Join(lines, "\n")
	if strings.Contains(got, "…") || len(lines) < 3 {
		t.Errorf("the header:\n%s", got)
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d is %d wide: %q", i, n, l)
		}
	}
	flat := strings.Join(strings.Fields(got), "")
	for _, it := range items {
		if !strings.Contains(flat, strings.Join(strings.Fields(it), "")) {
			t.Errorf("the header lacks %q:\n%s", it, got)
		}
	}
}
