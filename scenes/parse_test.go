package scenes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinScenesParse(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"dual-write-crash", "dual-write-phantom", "rollback", "crash-after-commit", "two-relays",
		"crash-after-publish", "concurrent-duplicate", "crash-before-ack", "broker-down", "poison-message",
		"lease-expired", "out-of-order", "two-consumers"}
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

// A header after a variant: line applies to the scene and to the variant; it
// used to be dropped from the variant silently.
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
