package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
	"github.com/outboxlab/outboxlab/scenes"
)

// tempDataDir is a new data directory: outboxlab boots cold there, as on a
// user's first run (or refuses bad input before it boots anything).
func tempDataDir(t *testing.T) string {
	t.Helper()
	return pgtest.DataDir(t)
}

// seededDataDir is a data directory as a first run leaves it, which
// outboxlab boots warm: for tests about what comes after the boot.
func seededDataDir(t *testing.T) string {
	t.Helper()
	return pgtest.SeededDataDir(t, nil)
}

func TestDoctorReportsAndSaysOK(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := run([]string{"doctor", "--data-dir", tempDataDir(t)}, &out, &errb)
	if code != exitOK {
		t.Fatalf("doctor exit %d, stderr:\n%s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if lines[len(lines)-1] != "ok" {
		t.Errorf("last line %q, want ok", lines[len(lines)-1])
	}
	for _, want := range []string{"binaries:", "version:   PostgreSQL ", "data dir:", "listening: 127.0.0.1:", "boot:      cold (initdb)", "boot time:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		say  string
	}{
		{"unknown flag", []string{"doctor", "--bogus"}, exitUsage, "flag provided but not defined: -bogus"},
		{"stray argument", []string{"doctor", "extra"}, exitUsage, `unexpected argument "extra"`},
		{"unknown command", []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{"missing binaries", []string{"doctor", "--pg-bin", "/nonexistent/pg", "--data-dir", tempDataDir(t)}, exitUsage, "--pg-bin /nonexistent/pg: no such directory"},
		{"bad database url", []string{"doctor", "--database-url", "mysql://x"}, exitUsage, "want postgres://"},
		{"unreachable database url", []string{"doctor", "--database-url", "postgres://u:secret@127.0.0.1:1/db"}, exitUsage, "127.0.0.1:1"},
		{"http port in use", []string{"--http", busyPort(t), "--data-dir", tempDataDir(t)}, exitUsage, "another program listens there; choose another port"},
		{"http address without a port", []string{"--http", "localhost", "--data-dir", tempDataDir(t)}, exitUsage, "want HOST:PORT"},
		{"http with play", []string{"play", "dual-write-crash", "--http", "127.0.0.1:0", "--data-dir", tempDataDir(t)}, exitUsage, "flag provided but not defined: -http"},
		{"serve on a port in use", []string{"serve", "--http", busyPort(t), "--data-dir", tempDataDir(t)}, exitUsage, "another program listens there"},
		{"serve with an unknown scene", []string{"serve", "--http", "127.0.0.1:0", "--scene", "nope", "--data-dir", tempDataDir(t)}, exitUsage, `unknown scene "nope"`},
		{"serve --otlp without --http", []string{"serve", "--otlp", "127.0.0.1:4318", "--data-dir", tempDataDir(t)}, exitUsage, "go with --http"},
		{"serve with an unknown broker", []string{"serve", "--http", "127.0.0.1:0", "--broker", "kafka", "--data-dir", tempDataDir(t)}, exitUsage, "want inprocess, nats (JetStream embedded) or nats://HOST:PORT"},
		{"serve --broker without --http", []string{"serve", "--broker", "nats", "--data-dir", tempDataDir(t)}, exitUsage, "go with --http"},
		{"serve --broker nats in compare mode", []string{"serve", "--http", "127.0.0.1:0", "--broker", "nats", "--mode", "compare", "--data-dir", tempDataDir(t)}, exitUsage, "--mode compare and --otlp go with --broker inprocess"},
		{"live on the in-process broker", []string{"live", "--broker", "inprocess", "--data-dir", tempDataDir(t)}, exitUsage, "the in-process broker runs on the simulator's virtual clock"},
		{"live with an unknown broker", []string{"live", "--broker", "bogus", "--data-dir", tempDataDir(t)}, exitUsage, "want inprocess, nats (JetStream embedded) or nats://HOST:PORT"},
		{"live on a port in use", []string{"live", "--http", busyPort(t), "--data-dir", tempDataDir(t)}, exitUsage, "another program listens there"},
		{"live with an unknown flag", []string{"live", "--bogus"}, exitUsage, "flag provided but not defined: -bogus"},
		{"live with a bad language", []string{"live", "--lang", "fr", "--data-dir", tempDataDir(t)}, exitUsage, "--lang"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(c.args, &out, &errb)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, errb.String())
			}
			if !strings.Contains(errb.String(), c.say) {
				t.Errorf("stderr %q does not say %q", errb.String(), c.say)
			}
		})
	}
}

func TestScenesListsEveryBuiltin(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"scenes"}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, name := range []string{"dual-write-crash", "crash-after-publish", "poison-message", "two-consumers"} {
		if !strings.Contains(out.String(), name+" ") {
			t.Errorf("scenes output lacks %s:\n%s", name, out.String())
		}
	}
}

func TestRunJSONEndsWithSummaries(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := run([]string{"run", "dual-write-crash", "--json", "--data-dir", seededDataDir(t)}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var summaries []map[string]any
	for i, line := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("line %d is not JSON: %q", i+1, line)
		}
		if _, ok := obj["expected_held"]; ok {
			summaries = append(summaries, obj)
		}
	}
	if len(summaries) != 2 {
		t.Fatalf("%d summary objects, want one per pipeline (naive, outbox)", len(summaries))
	}
	for _, key := range []string{"scene", "mode", "seed", "payments", "outbox_rows", "published", "deliveries", "duplicates_ignored", "effects", "lost_events", "phantom_effects", "duplicate_effects", "dead_lettered", "expected_held"} {
		if _, ok := summaries[0][key]; !ok {
			t.Errorf("summary lacks %q", key)
		}
	}
	// Every figure an expect line accepts, and one object per expectation.
	for _, fig := range scenes.Figures {
		if _, ok := summaries[1][fig]; !ok {
			t.Errorf("summary lacks the figure %q", fig)
		}
	}
	exps, _ := summaries[1]["expectations"].([]any)
	if len(exps) == 0 {
		t.Fatalf("outbox summary has no expectations: %v", summaries[1])
	}
	for _, e := range exps {
		obj, _ := e.(map[string]any)
		for _, key := range []string{"text", "file", "line", "got", "held"} {
			if _, ok := obj[key]; !ok {
				t.Errorf("expectation %v lacks %q", obj, key)
			}
		}
		if !strings.HasPrefix(obj["text"].(string), "expect outbox ") || obj["line"].(float64) < 1 {
			t.Errorf("expectation %v: want its text and line", obj)
		}
	}
	if summaries[0]["pipeline"] != "naive" || summaries[0]["lost_events"] != 1.0 {
		t.Errorf("naive summary = %v, want lost_events 1", summaries[0])
	}
	if summaries[1]["lost_events"] != 0.0 || summaries[1]["expected_held"] != true {
		t.Errorf("outbox summary = %v, want lost_events 0 and expected_held", summaries[1])
	}
}

func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/broken.scene", []byte("title: x\nteaches: y\nrequest amount=abc\nexpect outbox payments == 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		say  string
	}{
		{[]string{"run", "no-such-scene"}, `unknown scene "no-such-scene"`},
		{[]string{"run"}, "which scene?"},
		{[]string{"run", "rollback", "--mode", "sideways"}, `--mode "sideways"`},
		{[]string{"run", "rollback", "--variant", "nope"}, `no variant "nope"`},
		{[]string{"run", "rollback", "--scenes", dir}, "broken.scene:3: request: amount="},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", c.args, code, exitUsage)
		}
		if !strings.Contains(errb.String(), c.say) {
			t.Errorf("%v: stderr %q does not say %q", c.args, errb.String(), c.say)
		}
	}
}

// A scene whose expected outcome does not hold exits 1.
func TestRunExitsOneWhenExpectationFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scene := "title: wrong\nteaches: a false claim\nrequest\ndrain\nexpect outbox payments == 2\n"
	if err := os.WriteFile(dir+"/wrong.scene", []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"run", "wrong", "--scenes", dir, "--data-dir", seededDataDir(t)}, &out, &errb)
	if code != exitFail {
		t.Fatalf("exit %d, want %d; stderr %s", code, exitFail, errb.String())
	}
	if !strings.Contains(out.String(), "FAIL expect outbox payments == 2 (got 1)") {
		t.Errorf("output does not show the failed expectation:\n%s", out.String())
	}
}

// The README's scene table names every built-in scene, so a new scene is
// not left undocumented.
func TestReadmeListsEveryScene(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"scenes"}, &out, &errb); code != exitOK {
		t.Fatal(errb.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		name := strings.Fields(line)[0]
		if !strings.Contains(string(readme), "| "+name+" |") {
			t.Errorf("README's scene table lacks %s", name)
		}
	}
}

// A scene's mistakes exit 2 with file:line, whether found before anything
// runs (an actor the scene does not run, restart-postgres on an external
// server) or while running (capture before any request); a run in which no
// expectation applied is no pass (exit 1) and says so.
func TestRunScriptMistakesAndVacuousRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"absent":   "title: t\nteaches: t\nrequest\ncrash relay-2 at relay.claimed\ndrain\nexpect outbox payments == 1\n",
		"external": "title: t\nteaches: t\nrequest\nrestart-postgres\nexpect outbox payments == 1\n",
		"early":    "title: t\nteaches: t\ncapture\nrequest\nexpect outbox payments == 1\n",
		"outbox":   "title: t\nteaches: t\nrequest\ndrain\nexpect outbox lost_events == 0\n",
	}
	for name, text := range files {
		if err := os.WriteFile(dir+"/"+name+".scene", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := seededDataDir(t)
	cases := []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"run", "absent", "--scenes", dir, "--data-dir", data}, exitUsage, "absent.scene:4: crash relay-2 at relay.claimed: relay-2 does not run in this scene: it has relays: 1"},
		{[]string{"run", "external", "--scenes", dir, "--database-url", "postgres://u:p@127.0.0.1:1/db"}, exitUsage, "external.scene:4: restart-postgres needs the embedded server"},
		{[]string{"run", "early", "--scenes", dir, "--data-dir", data}, exitUsage, "early.scene:3: capture: no payment to capture"},
		{[]string{"run", "outbox", "--scenes", dir, "--data-dir", data, "--mode", "naive"}, exitFail, "no expectation applies in mode naive"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, errb.String())
		}
		if !strings.Contains(errb.String()+out.String(), c.say) {
			t.Errorf("%v: output does not say %q:\nstderr %s\nstdout %s", c.args, c.say, errb.String(), lastLines(out.String(), 4))
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// A --data-dir that holds a user's files is refused (exit 2) and nothing in
// it changes: not its mode, not its owner, not its files.
func TestDoctorRefusesAForeignDataDir(t *testing.T) {
	dir := filepath.Dir(tempDataDir(t)) // reachable by the server account, so only its contents decide
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("mine"), 0o640); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(dir)
	fbefore, _ := os.Stat(file)
	var out, errb bytes.Buffer
	code := run([]string{"doctor", "--data-dir", dir}, &out, &errb)
	if code != exitUsage || !strings.Contains(errb.String(), "not an outboxlab data directory") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	after, _ := os.Stat(dir)
	fafter, _ := os.Stat(file)
	if after.Mode() != before.Mode() || fafter.Mode() != fbefore.Mode() || ownerOf(after) != ownerOf(before) {
		t.Errorf("doctor changed %s: mode %v → %v", dir, before.Mode(), after.Mode())
	}
	if ownerOf(fafter) != ownerOf(fbefore) {
		t.Errorf("doctor changed the owner of %s", file)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("doctor left %d entries in %s, want only notes.txt", len(entries), dir)
	}
}

func ownerOf(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d", st.Uid, st.Gid)
}

// Beside a running outboxlab (here: a server this test booted and holds),
// `run` and `doctor` on the same data directory use its server instead of
// refusing, and leave it running.
func TestRunBesideAnotherOutboxlab(t *testing.T) {
	dir := seededDataDir(t)
	owner, err := pg.Boot(context.Background(), pg.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Stop()
	var out, errb bytes.Buffer
	if code := run([]string{"run", "rollback", "--data-dir", dir}, &out, &errb); code != exitOK {
		t.Fatalf("run beside another outboxlab: exit %d, %s", code, errb.String())
	}
	out.Reset()
	if code := run([]string{"doctor", "--data-dir", dir}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "shared with outboxlab pid") {
		t.Fatalf("doctor beside another outboxlab: exit %d:\n%s%s", code, out.String(), errb.String())
	}
	if err := owner.Alive(context.Background()); err != nil {
		t.Fatalf("the owner's server after them: %v", err)
	}
}

// story draws one message's life: flags it cannot use are refused before
// anything boots, a --message that names no message is bad input (exit 2)
// listing the run's messages, a good one prints the diagram or Mermaid.
func TestStory(t *testing.T) {
	// English unless --lang says otherwise, whatever the machine's locale.
	t.Setenv("LC_ALL", "")
	t.Setenv("LANG", "C.UTF-8")
	data := seededDataDir(t)
	cases := []struct {
		name string
		args []string
		code int
		say  []string // on stdout for exit 0, else on stderr
	}{
		{"no scene", []string{"story"}, exitUsage, []string{"which scene?"}},
		{"bad pipeline", []string{"story", "crash-after-publish", "--pipeline", "sideways"}, exitUsage, []string{`--pipeline "sideways": want outbox or naive`}},
		{"absent pipeline", []string{"story", "crash-after-publish", "--pipeline", "naive"}, exitUsage, []string{"runs in outbox mode, which has no naive pipeline"}},
		{"narrow", []string{"story", "crash-after-publish", "--width", "20"}, exitUsage, []string{"--width 20: want 40 or more"}},
		{"unknown message", []string{"story", "crash-after-publish", "--message", "5", "--data-dir", data}, exitUsage,
			[]string{"outboxlab story: message 5: the run has 1 message: 1 …deb1bbf2 (payment …6aa6a684)"}},
		{"80 columns", []string{"story", "crash-after-publish", "--message", "…deb1bbf2", "--width", "80", "--data-dir", data}, exitOK,
			[]string{"scene crash-after-publish  seed 1", "✗╴crash: published, not marked", "duplicate: ignored",
				"accounting: 2 deliveries, 1 effect (its inbox ignored 1 duplicate)"}},
		{"readme", []string{"story", "crash-before-ack", "--width", "100", "--data-dir", data}, exitOK,
			[]string{"redeliver (delivery 2)"}},
		{"mermaid", []string{"story", "two-consumers", "--mermaid", "--data-dir", data}, exitOK,
			[]string{"sequenceDiagram\n", "participant R1 as relay-1", "B->>ACC: redeliver (delivery 2)", "Note over ACC: duplicate: ignored, no second effect"}},
		{"bad lang", []string{"story", "crash-after-publish", "--lang", "fr"}, exitUsage, []string{"outboxlab story: --lang"}},
		{"spanish", []string{"story", "crash-after-publish", "--lang", "es", "--width", "80", "--data-dir", data}, exitOK,
			[]string{"escena crash-after-publish  semilla 1", "mensaje 1 de 1  …deb1bbf2  pago …6aa6a684  pipeline outbox", "✗╴caída: publicado, sin marcar",
				"duplicado: ignorado, sin segundo efecto", "reloj +31s", "accounting: 2 entregas, 1 efecto (su inbox ignoró 1 duplicado)"}},
		{"spanish by LANG, mermaid", []string{"story", "two-consumers", "--mermaid", "--data-dir", data}, exitOK,
			[]string{"B->>ACC: reentregar (entrega 2)", "Note over ACC: duplicado: ignorado, sin segundo efecto"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if strings.Contains(c.name, "by LANG") {
				t.Setenv("LANG", "es_ES.UTF-8")
			}
			var out, errb bytes.Buffer
			code := run(c.args, &out, &errb)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, c.code, errb.String())
			}
			got := errb.String()
			if code == exitOK {
				got = out.String()
			}
			for _, s := range c.say {
				if !strings.Contains(got, s) {
					t.Errorf("output lacks %q:\n%s", s, got)
				}
			}
			if c.name == "readme" {
				// The README's example is this command's real output.
				readme, err := os.ReadFile("README.md")
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(readme), "```\n"+out.String()+"```\n") {
					t.Errorf("README's story example is not the output of outboxlab %s:\n%s", strings.Join(c.args[:4], " "), out.String())
				}
			}
			if c.name == "80 columns" || c.name == "spanish" {
				for i, line := range strings.Split(out.String(), "\n") {
					if n := len([]rune(line)); n > 80 {
						t.Errorf("line %d is %d wide: %q", i+1, n, line)
					}
				}
			}
		})
	}
}

// outboxlab chaos as a workshop runs it: bad flags refused before anything
// boots; a compare run prints the table with the outbox unbroken; a naive run
// finds a loss, writes the shrunk scene and `run` replays it failing.
func TestChaos(t *testing.T) {
	t.Parallel()
	data := seededDataDir(t)
	for _, tc := range []struct {
		args []string
		say  string
	}{
		{[]string{"chaos", "--mode", "both"}, `--mode "both": want outbox, naive or compare`},
		{[]string{"chaos", "--variant", "wrong"}, `--variant "wrong": want select-then-insert, hold-transaction, seq-cursor, lease-forever or cdc`},
		{[]string{"chaos", "--faults", "crash,meteor"}, `--faults: "meteor" is not a fault kind`},
		{[]string{"chaos", "--runs", "0"}, "--runs and --parallel want 1 or more"},
		{[]string{"chaos", "extra"}, `unexpected argument "extra"`},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), tc.say) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.say)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"chaos", "--runs", "12", "--data-dir", data}, &out, &errb); code != exitOK {
		t.Fatalf("compare: exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"chaos: 12 schedules of seed 1 (from 0), mode compare", "outbox chain   0 of 12 runs broke a guarantee", "naive write    lost events in"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
	dir := t.TempDir()
	out.Reset()
	errb.Reset()
	if code := run([]string{"chaos", "--mode", "naive", "--runs", "20", "--out", dir, "--data-dir", data}, &out, &errb); code != exitFail {
		t.Fatalf("naive: exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.scene"))
	if len(files) == 0 || !strings.Contains(out.String(), "outboxlab chaos --seed 1 --from ") || !strings.Contains(out.String(), "replay: outboxlab run --scenes "+dir) {
		t.Fatalf("no shrunk scene or replay command (%v):\n%s", files, out.String())
	}
	name := strings.TrimSuffix(filepath.Base(files[0]), ".scene")
	var rout, rerr bytes.Buffer
	if code := run([]string{"run", "--scenes", dir, "--data-dir", data, name}, &rout, &rerr); code != exitFail {
		t.Fatalf("the shrunk scene %s does not fail when run: exit %d\n%s%s", name, code, rout.String(), rerr.String())
	}
}

// busyPort is an address something already listens on, for the test's life.
func busyPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}
