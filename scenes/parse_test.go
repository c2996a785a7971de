package scenes

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestBuiltinScenesParse(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"dual-write-crash", "dual-write-phantom", "rollback", "crash-after-commit", "two-relays",
		"crash-after-publish", "concurrent-duplicate", "crash-before-ack", "broker-down", "poison-message",
		"lease-expired", "out-of-order", "two-consumers", "trace-is-not-an-id", "commit-order", "dedup-window", "cdc-relay"}
	have := map[string]*Scene{}
	for _, s := range all {
		have[s.Name] = s
	}
	for _, name := range want {
		s, ok := have[name]
		if !ok {
			t.Errorf("built-in scene %s is missing", name)
			continue
		}
		if s.Title == "" || s.Teaches == "" || len(s.Expects) == 0 {
			t.Errorf("%s: title %q, teaches %q, %d expectations", name, s.Title, s.Teaches, len(s.Expects))
		}
	}
	if v, ok := have["concurrent-duplicate"].Variants["select-then-insert"]; !ok || v.Consumer != "select-then-insert" {
		t.Errorf("concurrent-duplicate lacks its select-then-insert variant: %+v", v)
	}
	if v, ok := have["trace-is-not-an-id"].Variants["trace-id"]; !ok || v.Consumer != "trace-id" {
		t.Errorf("trace-is-not-an-id lacks its trace-id variant: %+v", v)
	}
	if v, ok := have["commit-order"].Variants["seq-cursor"]; !ok || !v.SeqCursor || v.Writers != 2 {
		t.Errorf("commit-order lacks its seq-cursor variant with two writers: %+v", v)
	}
	if dw := have["dedup-window"]; dw.Settings.DedupWindow != 2*time.Minute || dw.Variants["late-republish"].Lease != 3*time.Minute ||
		dw.Variants["late-republish"].DedupWindow != 2*time.Minute {
		t.Errorf("dedup-window: window %s, late-republish %+v", dw.Settings.DedupWindow, dw.Variants["late-republish"])
	}
	if sc := have["cdc-relay"]; sc == nil || sc.Settings.Relay() != RelayCDC {
		t.Errorf("cdc-relay does not run relay: cdc")
	} else if v, ok := sc.Variants["polling"]; !ok || v.Relay() != RelayClaim {
		t.Errorf("cdc-relay lacks its polling variant: %+v", v)
	}
}

func TestMalformedSceneSaysWhereAndWhy(t *testing.T) {
	cases := []struct {
		name, text string
		line       int
		reason     string
	}{
		{"unknown command", "title: t\nteaches: x\n\nrequest\nexplode relay-1\nexpect outbox payments == 1\n", 5, `unknown command "explode"`},
		{"unknown actor", "title: t\nteaches: x\ncrash relay-9 at relay.published\nexpect outbox payments == 1\n", 3, `unknown actor "relay-9"`},
		{"unknown checkpoint", "title: t\nteaches: x\ncrash relay-1 at relay.somewhere\nexpect outbox payments == 1\n", 3, `unknown checkpoint "relay.somewhere"`},
		{"bad amount", "title: t\nteaches: x\nrequest amount=-5\nexpect outbox payments == 1\n", 3, "not a positive number of cents"},
		{"bad duration", "title: t\nteaches: x\nadvance soon\nexpect outbox payments == 1\n", 3, `"soon" is not a positive duration`},
		{"bad header", "title: t\nteaches: x\nrelays: 7\nrequest\nexpect outbox payments == 1\n", 3, "relays"},
		{"unknown header", "title: t\ncolour: blue\n", 2, `unknown header "colour"`},
		{"header after steps", "title: t\nteaches: x\nrequest\nmode: naive\n", 4, "after the first command"},
		{"bad figure", "title: t\nteaches: x\nrequest\nexpect outbox happiness == 1\n", 4, `unknown figure "happiness"`},
		{"bad operator", "title: t\nteaches: x\nrequest\nexpect outbox payments ~ 1\n", 4, `operator "~"`},
		{"pipeline not run", "title: t\nteaches: x\nmode: outbox\nrequest\nexpect naive payments == 1\n", 5, `pipeline "naive"`},
		{"missing title", "teaches: x\nrequest\nexpect outbox payments == 1\n", 1, "title"},
		{"no expectations", "title: t\nteaches: x\nrequest\n", 3, "no expect lines"},
		{"language not a code", "title: t\nteaches: x\ntitle.spanish: t\n", 3, "two-letter language code"},
		{"english as a translation", "title: t\nteaches: x\nteaches.en: x\n", 3, "English is the plain teaches: header"},
		{"translated setting", "title: t\nteaches: x\nmode.es: naive\n", 3, `unknown header "mode.es"`},
		{"two cdc relays", "title: t\nteaches: x\nrelay: cdc\nrelays: 2\nrequest\nexpect outbox payments == 1\n", 1, "relay: cdc runs one relay"},
		{"cdc with max-attempts", "title: t\nteaches: x\nrelay: cdc\nmax-attempts: 3\nrequest\nexpect outbox payments == 1\n", 4, "a CDC relay (relay: cdc) has no attempts counter and no dead letter"},
		{"max-attempts before relay: cdc", "title: t\nteaches: x\nmax-attempts: 3\nrelay: cdc\nrequest\nexpect outbox payments == 1\n", 3, "dead-letter topic"},
		{"cdc variant with max-attempts", "title: t\nteaches: x\nvariant: stream relay: cdc max-attempts: 2\nrequest\nexpect outbox payments == 1\n", 3, "variant stream: max-attempts: a CDC relay"},
		{"cdc variant under max-attempts", "title: t\nteaches: x\nmax-attempts: 2\nvariant: stream relay: cdc\nrequest\nexpect outbox payments == 1\n", 3, "variant stream: max-attempts: a CDC relay"},
		{"undeclared variant", "title: t\nteaches: x\nrequest\nexpect variant=wrong outbox payments == 1\n", 4, `variant "wrong"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x", "mine/x.scene", strings.NewReader(c.text))
			if err == nil {
				t.Fatal("parsed without error")
			}
			se, ok := err.(*Error)
			if !ok {
				t.Fatalf("error %T %v, want *Error", err, err)
			}
			if se.Line != c.line || !strings.Contains(se.Reason, c.reason) {
				t.Errorf("got %q, want line %d and a reason containing %q", err, c.line, c.reason)
			}
			if !strings.HasPrefix(err.Error(), "mine/x.scene:") {
				t.Errorf("error %q does not start with file:line", err)
			}
		})
	}
}

func TestLoadDirAddsAndReplaces(t *testing.T) {
	dir := t.TempDir()
	mine := "title: Mine\nteaches: something\nrequest\nexpect outbox payments == 1\n"
	if err := os.WriteFile(filepath.Join(dir, "mine.scene"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rollback.scene"), []byte(strings.Replace(mine, "Mine", "Replaced", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Find(all, "mine")
	if err != nil || m.Title != "Mine" {
		t.Errorf("mine: %v %v", m, err)
	}
	r, err := Find(all, "rollback")
	if err != nil || r.Title != "Replaced" {
		t.Errorf("rollback not replaced: %v %v", r, err)
	}
	if _, err := Find(all, "nope"); err == nil || !strings.Contains(err.Error(), "known:") {
		t.Errorf("Find(nope) = %v, want an error listing known scenes", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.scene"), []byte("title: x\nteaches: y\nfly\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "broken.scene:3") {
		t.Errorf("Load with a broken file: %v, want broken.scene:3", err)
	}
}

// A header after a variant: line applies to the scene and to the variant,
// not to the scene alone: a variant is the scene with a change, and a
// header it silently lacked would make it another scene.
func TestHeaderAfterVariantAppliesToIt(t *testing.T) {
	sc, err := Parse("y", "y.scene", strings.NewReader(`title: y
teaches: y
variant: wrong consumer: select-then-insert
relays: 2
request
expect outbox lost_events == 0
`))
	if err != nil {
		t.Fatal(err)
	}
	v := sc.Variants["wrong"]
	if v.Relays != 2 || v.Consumer != "select-then-insert" || sc.Settings.Relays != 2 {
		t.Fatalf("variant relays %d consumer %s, scene relays %d: want 2, select-then-insert, 2", v.Relays, v.Consumer, sc.Settings.Relays)
	}
}

// A file saved with a UTF-8 byte order mark reads like one without.
func TestByteOrderMarkIsIgnored(t *testing.T) {
	sc, err := Parse("bom", "bom.scene", strings.NewReader("\uFEFFtitle: bom\nteaches: b\nrequest\nexpect outbox payments == 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Title != "bom" {
		t.Fatalf("title %q", sc.Title)
	}
}

// A line over the limit is refused with its file and line, not a bufio error.
func TestOverlongLineSaysWhere(t *testing.T) {
	text := "title: long\nteaches: l\nrequest key=" + strings.Repeat("k", 70*1024) + "\nexpect outbox payments == 1\n"
	_, err := Parse("long", "long.scene", strings.NewReader(text))
	if err == nil || !strings.Contains(err.Error(), "long.scene:3: line longer than 64 KiB") {
		t.Fatalf("err = %v", err)
	}
}

// title.LANG: and teaches.LANG: give a scene's words in another language;
// what a language leaves out is said in English.
func TestTranslatedTitleAndTeaches(t *testing.T) {
	sc, err := Parse("t", "t.scene", strings.NewReader(`title: The lost event
teaches: S1. Commit, then publish,
teaches: loses the event.
title.es: El evento perdido   # a comment, as anywhere
teaches.es: S1. Confirmar y después publicar
teaches.es: pierde el evento.
teaches.fr: S1. Valider puis publier perd l'événement.
request
expect outbox payments == 1
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ lang, title, teaches string }{
		{"es", "El evento perdido", "S1. Confirmar y después publicar pierde el evento."},
		{"fr", "The lost event", "S1. Valider puis publier perd l'événement."},
		{"en", "The lost event", "S1. Commit, then publish, loses the event."},
		{"", "The lost event", "S1. Commit, then publish, loses the event."},
		{"de", "The lost event", "S1. Commit, then publish, loses the event."},
	} {
		if got := sc.TitleIn(c.lang); got != c.title {
			t.Errorf("TitleIn(%q) = %q, want %q", c.lang, got, c.title)
		}
		if got := sc.TeachesIn(c.lang); got != c.teaches {
			t.Errorf("TeachesIn(%q) = %q, want %q", c.lang, got, c.teaches)
		}
	}
	text := sc.Text()
	for _, want := range []string{"\ntitle.es: El evento perdido\n", "\nteaches.es: S1. Confirmar y después publicar pierde el evento.\n", "\nteaches.fr: S1."} {
		if !strings.Contains(text, want) {
			t.Errorf("Text() lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "title.fr:") {
		t.Errorf("Text() writes a French title the scene does not have:\n%s", text)
	}
}

// Under --lang es a built-in scene is Spanish too: every one has its title
// and what it teaches in Spanish, numbered like the English (S13. ...).
func TestEveryBuiltinSceneSpeaksSpanish(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	number := regexp.MustCompile(`^S\d+\. `)
	for _, sc := range all {
		es, ok := sc.Translations["es"]
		if !ok || es.Title == "" || es.Teaches == "" {
			t.Errorf("%s: no Spanish title or teaches (title.es:, teaches.es:): %+v", sc.Name, es)
			continue
		}
		if es.Title == sc.Title || es.Teaches == sc.Teaches {
			t.Errorf("%s: the Spanish is the English", sc.Name)
		}
		if n := number.FindString(sc.Teaches); !strings.HasPrefix(es.Teaches, n) {
			t.Errorf("%s: the Spanish teaches does not start with %q: %q", sc.Name, n, es.Teaches)
		}
		if strings.Contains(strings.ToLower(es.Teaches), "dren") {
			t.Errorf("%s: drain is vaciar, not drenar: %q", sc.Name, es.Teaches)
		}
	}
}

// An ordering with a relay that makes no claim of its own is refused, in the
// scene and in a variant, not run without its ordering.
func TestOrderingNeedsTheClaim(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"relay: hold-transaction\nordering: partition\n", "relay: hold-transaction"},
		{"ordering: one-in-flight\nvariant: seq relay: seq-cursor\n", "variant seq: ordering: one-in-flight"},
	} {
		_, err := Parse("bad", "bad.scene", strings.NewReader("title: t\nteaches: t\n"+tc.text+"request\nexpect outbox payments == 1\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error naming %q", tc.text, err, tc.want)
		}
	}
}
