package scenes

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/engine"
)

// Error is a scene file problem: where and why.
type Error struct {
	File   string
	Line   int
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

// Actors are the names a scene may give to crash, stall, step or restart.
var Actors = []string{"api", "api-2", "naive", "relay-1", "relay-2", "accounting", "accounting-2", "notifications", "sender"}

// Checkpoints are the names a fault may be armed at.
var Checkpoints = []engine.Checkpoint{
	engine.APIBegin, engine.APIInserted, engine.APICommitted,
	engine.NaiveBegin, engine.NaiveInserted, engine.NaiveCommitted, engine.NaivePublished,
	engine.RelayClaimed, engine.RelayPublished, engine.RelayMarked, engine.RelayRetryScheduled, engine.RelayDeadLettered, engine.RelayLeaseLost,
	engine.RelayReceived, engine.RelayConfirmed,
	engine.BrokerDelivered,
	engine.ConsumerInboxInserted, engine.ConsumerDuplicate, engine.ConsumerVersionGap, engine.ConsumerEffectApplied, engine.ConsumerCommitted, engine.ConsumerAcked,
	engine.ConsumerCalled, engine.SenderCalled, engine.SenderMarked,
}

// Command is one scene command of the one table of them (Commands): the
// simulator, the lessons and the screen's keys ask it what a command word
// takes, and the documentation shows its form and what it does.
type Command struct {
	// Actor: its first argument is an actor (crash relay-1, step api).
	Actor      bool
	Form, Does string
	check      func(s *Step) error
}

// Word is the command's word, the first of its form.
func (c Command) Word() string { return strings.SplitN(c.Form, " ", 2)[0] }

// Lookup is the command of a word; false for a word no command has.
func Lookup(word string) (Command, bool) {
	if c := findCommand(word); c != nil {
		return *c, true
	}
	return Command{}, false
}

// TakesActor reports whether st names an actor: its command's first
// argument is one, and it is there.
func (st Step) TakesActor() bool {
	c, ok := Lookup(st.Cmd)
	return ok && c.Actor && len(st.Args) > 0
}

// Commands are the scene commands, in the order the documentation lists them.
var Commands = []Command{
	{false, "request [amount=N] [client=C] [key=K] [currency=CUR] [trace=TRACEPARENT] [poison]", "send a payment request to the API (both pipelines in compare mode)", checkRequest},
	{false, "capture", "the API captures the last payment: a second event of the same aggregate (version 2)", noArgs},
	{false, "resend [key=K]", "send the last request (or the last with Idempotency-Key K) again, same key and body", checkKeyOnly},
	{false, "resend-other [key=K]", "send the last request's Idempotency-Key (or K) with another body (rejected: 422)", checkKeyOnly},
	{true, "crash ACTOR [at CHECKPOINT]", "kill the actor now, or when it reaches CHECKPOINT: its connection closes without COMMIT", checkActorAt(false)},
	{true, "stall ACTOR at CHECKPOINT", "hold the actor at CHECKPOINT until resumed (past its lease, say)", checkActorAt(true)},
	{true, "resume ACTOR", "let a stalled actor go on", checkActor},
	{true, "restart ACTOR", "bring a crashed actor back (a relay gets a new worker id)", checkActor},
	{true, "fail-commit ACTOR at CHECKPOINT", "the actor's next COMMIT after CHECKPOINT fails (rolled back)", checkActorAt(true)},
	{true, "drop-commit ACTOR at CHECKPOINT", "the connection drops during the actor's next COMMIT: committed, but the actor cannot know", checkActorAt(true)},
	{false, "duplicate", "the broker hands out its next delivery twice", noArgs},
	{false, "broker down|up", "take the broker down (publish and deliver fail) or bring it back", checkBroker},
	{false, "restart-postgres", "stop PostgreSQL immediately and start it: committed data survives, open transactions do not", noArgs},
	{false, "advance DURATION", "move the virtual clock forward (30s, 5m)", checkDuration},
	{true, "step ACTOR [N]", "move one actor to its next checkpoint (N times)", checkStep},
	{false, "next [N]", "move the actor the scheduler picks to its next checkpoint (N times): what the simulator's n key does", checkCount},
	{true, "until ACTOR CHECKPOINT", "step one actor until it reaches CHECKPOINT (or blocks on a lock)", checkUntil},
	{true, "finish ACTOR", "step one actor until it has nothing left to do; the others stay where they are", checkActor},
	{false, "run", "let every actor move until none has work now (the clock stands still)", noArgs},
	{false, "drain", "run, moving the clock to the next due retry, lease or redelivery, until nothing is pending", noArgs},
	{false, "requeue", "requeue every dead-lettered outbox message (same id)", noArgs},
	{false, "prune inbox|outbox older-than DURATION", "retention: delete processed inbox rows or published outbox rows older than DURATION", checkPrune},
}

// Parse reads a scene; name is what `outboxlab run NAME` calls it, file is
// used in error messages.
func Parse(name, file string, r io.Reader) (*Scene, error) {
	sc := &Scene{Name: name, File: file, Settings: DefaultSettings(), Variants: map[string]Settings{}}
	in := bufio.NewScanner(r)
	in.Buffer(make([]byte, 0, 4096), maxLine)
	n := 0
	// A variant overrides some settings of the scene's final ones: a header
	// written after the variant: line applies to the variant too.
	variants := map[string][][2]string{}
	fail := func(format string, args ...any) error {
		return &Error{File: file, Line: n, Reason: fmt.Sprintf(format, args...)}
	}
	inBody := false
	// Where max-attempts: was written, for the scene (and so every variant)
	// or for one variant: a CDC relay refuses it.
	attemptsLine, variantAttempts := 0, map[string]int{}
	for in.Scan() {
		n++
		text := in.Text()
		if n == 1 {
			text = strings.TrimPrefix(text, "\uFEFF") // a BOM some editors write
		}
		line := strings.TrimSpace(text)
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		if key, ok := strings.CutSuffix(word, ":"); ok {
			if inBody {
				return nil, fail("header %q after the first command: put headers at the top", key)
			}
			if err := sc.header(key, strings.TrimSpace(rest), variants); err != nil {
				return nil, fail("%v", err)
			}
			if key == "max-attempts" {
				attemptsLine = n
			} else if name, set, _ := strings.Cut(strings.TrimSpace(rest), " "); key == "variant" && slices.Contains(strings.Fields(set), "max-attempts:") {
				variantAttempts[name] = n
			}
			continue
		}
		inBody = true
		if word == "expect" {
			e, err := parseExpect(strings.Fields(rest))
			if err != nil {
				return nil, fail("%v", err)
			}
			e.Line = n
			if _, ok := sc.Variants[e.Variant]; e.Variant != "" && !ok {
				return nil, fail("expect names variant %q, not declared by a variant: header", e.Variant)
			}
			sc.Expects = append(sc.Expects, e)
			continue
		}
		step := Step{Line: n, Cmd: word, KV: map[string]string{}}
		for _, f := range strings.Fields(rest) {
			if k, v, ok := strings.Cut(f, "="); ok {
				step.KV[k] = v
			} else {
				step.Args = append(step.Args, f)
			}
		}
		cmd := findCommand(word)
		if cmd == nil {
			return nil, fail("unknown command %q (known: %s)", word, strings.Join(commandWords(), ", "))
		}
		if err := cmd.check(&step); err != nil {
			return nil, fail("%s: %v (form: %s)", word, err, cmd.Form)
		}
		sc.Steps = append(sc.Steps, step)
	}
	if err := in.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			n++
			return nil, fail("line longer than %d KiB: split it (one command a line)", maxLine/1024)
		}
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if err := sc.Settings.combine(); err != nil {
		n = 1
		return nil, fail("%v", err)
	}
	for name, pairs := range variants {
		v := sc.Settings
		for _, kv := range pairs {
			_ = v.set(kv[0], kv[1]) // checked when the variant: line was read
		}
		if err := v.combine(); err != nil {
			n = 1
			return nil, fail("variant %s: %v", name, err)
		}
		sc.Variants[name] = v
	}
	if sc.Title == "" || sc.Teaches == "" {
		n = 1
		return nil, fail("missing header: a scene needs title: and teaches:")
	}
	if len(sc.Steps) == 0 {
		return nil, fail("no commands: a scene needs at least one step")
	}
	if len(sc.Expects) == 0 {
		return nil, fail("no expect lines: a scene must say what outcome it shows")
	}
	for _, set := range append([]Settings{sc.Settings}, slices.Collect(maps.Values(sc.Variants))...) {
		if set.CDC && set.Relays > 1 {
			n = 1
			return nil, fail("relay: cdc runs one relay (a replication slot streams to one session): remove relays: %d", set.Relays)
		}
	}
	if sc.Settings.CDC && attemptsLine > 0 {
		n = attemptsLine
		return nil, fail("%s", errCDCAttempts)
	}
	for _, name := range slices.Sorted(maps.Keys(sc.Variants)) {
		if line := max(attemptsLine, variantAttempts[name]); sc.Variants[name].CDC && line > 0 {
			n = line
			return nil, fail("variant %s: %s", name, errCDCAttempts)
		}
	}
	for _, e := range sc.Expects {
		set := sc.Settings
		if e.Variant != "" {
			set = sc.Variants[e.Variant]
		}
		if pipes := set.Pipelines(); !slices.Contains(pipes, e.Pipeline) {
			n = e.Line
			return nil, fail("expect names pipeline %q but mode %q runs %v", e.Pipeline, set.Mode, pipes)
		}
	}
	return sc, nil
}

// errCDCAttempts is why relay: cdc refuses max-attempts:. The stream has no
// attempts counter and no dead letter: the relay offers the message it holds
// until the broker takes it, and nothing after it moves (outboxlab's CDC
// relay's choice; Debezium and Kafka Connect send a failing record to a
// dead-letter topic instead).
const errCDCAttempts = "max-attempts: a CDC relay (relay: cdc) has no attempts counter and no dead letter: it offers the message it holds until the broker takes it, and nothing after it is published (Debezium and Kafka Connect send a failing record to a dead-letter topic instead): remove max-attempts"

// maxLine is the longest line a scene may have.
const maxLine = 64 * 1024

func (sc *Scene) header(key, val string, variants map[string][][2]string) error {
	if base, lang, ok := strings.Cut(key, "."); ok && (base == "title" || base == "teaches") {
		return sc.translation(base, lang, val)
	}
	switch key {
	case "title":
		sc.Title = val
		return nil
	case "teaches":
		if sc.Teaches != "" {
			sc.Teaches += " "
		}
		sc.Teaches += val
		return nil
	case "variant":
		name, rest, _ := strings.Cut(val, " ")
		if name == "" {
			return fmt.Errorf("variant: want a name then key: value settings")
		}
		if _, ok := variants[name]; ok {
			return fmt.Errorf("variant %s is declared twice", name)
		}
		v := sc.Settings
		var pairs [][2]string
		fields := strings.Fields(rest)
		for i := 0; i+1 < len(fields); i += 2 {
			k, ok := strings.CutSuffix(fields[i], ":")
			if !ok {
				return fmt.Errorf("variant %s: %q is not a setting (want key: value)", name, fields[i])
			}
			if err := v.set(k, fields[i+1]); err != nil {
				return fmt.Errorf("variant %s: %w", name, err)
			}
			pairs = append(pairs, [2]string{k, fields[i+1]})
		}
		if len(fields)%2 != 0 || len(fields) == 0 {
			return fmt.Errorf("variant %s: want key: value pairs", name)
		}
		variants[name] = pairs
		sc.Variants[name] = v // for the expect lines' check while reading; final below
		return nil
	}
	return sc.Settings.set(key, val)
}

// translation reads title.LANG: or teaches.LANG:, the scene's words in
// another language.
func (sc *Scene) translation(base, lang, val string) error {
	if len(lang) != 2 || strings.Trim(lang, "abcdefghijklmnopqrstuvwxyz") != "" {
		return fmt.Errorf("%s.%s: want a two-letter language code, like %s.es", base, lang, base)
	}
	if lang == "en" {
		return fmt.Errorf("%s.en: English is the plain %s: header", base, base)
	}
	if sc.Translations == nil {
		sc.Translations = map[string]Translation{}
	}
	tr := sc.Translations[lang]
	if base == "title" {
		tr.Title = val
	} else {
		if tr.Teaches != "" {
			tr.Teaches += " "
		}
		tr.Teaches += val
	}
	sc.Translations[lang] = tr
	return nil
}

func (s *Settings) set(key, val string) error {
	oneOf := func(opts ...string) error {
		if !slices.Contains(opts, val) {
			return fmt.Errorf("%s: %q is not one of %s", key, val, strings.Join(opts, ", "))
		}
		return nil
	}
	var err error
	switch key {
	case "mode":
		var m Mode
		if m, err = ParseMode(val); err == nil && m == "" {
			err = fmt.Errorf("want outbox, naive or compare")
		}
		s.Mode = m
	case "naive":
		err, s.Naive = oneOf("commit-then-publish", "publish-then-commit"), val
	case "consumer":
		err, s.Consumer = oneOf("inbox", "select-then-insert", "trace-id"), val
	case "relay":
		err = oneOf(RelayKindNames()...)
		k := RelayKind(val)
		s.HoldTx, s.SeqCursor, s.CDC = k == RelayHoldTx, k == RelaySeqCursor, k == RelayCDC
	case "order":
		err, s.OrderByKey = oneOf("none", "by-aggregate"), val == "by-aggregate"
	case "versions":
		err = oneOf("check", "ignore", "park")
		s.IgnoreVersions, s.ParkGaps = val == "ignore", val == "park"
	case "ordering":
		s.Ordering, err = engine.ParseOrdering(val)
	case "relays":
		s.Relays, err = atoiIn(val, 1, 2)
	case "workers":
		s.Workers, err = atoiIn(val, 1, 2)
	case "writers":
		s.Writers, err = atoiIn(val, 1, 2)
	case "max-attempts":
		s.MaxAttempts, err = atoiIn(val, 1, 100)
	case "batch":
		s.Batch, err = atoiIn(val, 1, 1000)
	case "lease":
		// forever is the wrong way the zombie-relay scene shows: no expiry.
		if s.LeaseForever = val == "forever"; !s.LeaseForever {
			if s.Lease, err = positiveDuration(val); err != nil {
				err = fmt.Errorf("%w, or forever (a lease with no end, the wrong way)", err)
			}
		}
	case "ack-timeout":
		s.AckTimeout, err = positiveDuration(val)
	case "dedup-window":
		s.DedupWindow, err = positiveDuration(val)
	case "seed":
		s.Seed, err = strconv.ParseUint(val, 10, 64)
	case "effect":
		s.Effect, err = parseEffect(val)
	default:
		return fmt.Errorf("unknown header %q (known: title, teaches, title.LANG, teaches.LANG, mode, naive, consumer, relay, order, ordering, versions, relays, workers, writers, effect, lease, ack-timeout, dedup-window, max-attempts, batch, seed, variant)", key)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

func atoiIn(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%q is not a number from %d to %d", s, lo, hi)
	}
	return n, nil
}

func positiveDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration like 30s or 5m", s)
	}
	return d, nil
}

func parseExpect(f []string) (Expect, error) {
	variant := ""
	if len(f) > 0 {
		if v, ok := strings.CutPrefix(f[0], "variant="); ok {
			variant, f = v, f[1:]
		}
	}
	e, err := parseExpectFigure(f)
	e.Variant = variant
	return e, err
}

func parseExpectFigure(f []string) (Expect, error) {
	if len(f) != 4 {
		return Expect{}, fmt.Errorf("expect: want PIPELINE FIGURE OP NUMBER, e.g. expect outbox duplicate_effects == 0")
	}
	e := Expect{Pipeline: f[0], Figure: f[1], Op: f[2]}
	if e.Pipeline != "naive" && e.Pipeline != "outbox" {
		return e, fmt.Errorf("expect: pipeline %q is not naive or outbox", f[0])
	}
	if !slices.Contains(Figures, e.Figure) {
		return e, fmt.Errorf("expect: unknown figure %q (known: %s)", f[1], strings.Join(Figures, ", "))
	}
	if !slices.Contains([]string{"==", "!=", ">=", "<=", ">", "<"}, e.Op) {
		return e, fmt.Errorf("expect: operator %q is not one of == != >= <= > <", f[2])
	}
	v, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return e, fmt.Errorf("expect: %q is not a whole number", f[3])
	}
	e.Value = v
	return e, nil
}

func findCommand(word string) *Command {
	for i := range Commands {
		if Commands[i].Word() == word {
			return &Commands[i]
		}
	}
	return nil
}

func commandWords() []string {
	var w []string
	for _, c := range Commands {
		w = append(w, c.Word())
	}
	return w
}

func noArgs(s *Step) error {
	if len(s.Args) > 0 || len(s.KV) > 0 {
		return fmt.Errorf("takes no arguments")
	}
	return nil
}

func checkKeyOnly(s *Step) error {
	if len(s.Args) > 0 {
		return fmt.Errorf("unexpected %q", s.Args[0])
	}
	for k, v := range s.KV {
		if k != "key" || v == "" {
			return fmt.Errorf("only key=K (not %s=%s)", k, v)
		}
	}
	return nil
}

func checkRequest(s *Step) error {
	for _, a := range s.Args {
		if a != "poison" {
			return fmt.Errorf("unexpected %q", a)
		}
	}
	for k, v := range s.KV {
		switch k {
		case "amount":
			if n, err := strconv.ParseInt(v, 10, 64); err != nil || n <= 0 {
				return fmt.Errorf("amount=%q is not a positive number of cents", v)
			}
		case "client", "key":
			if v == "" {
				return fmt.Errorf("%s= is empty", k)
			}
		case "currency":
			if len(v) != 3 || strings.ToUpper(v) != v {
				return fmt.Errorf("currency=%q is not a 3-letter code", v)
			}
		case "trace":
			// A W3C traceparent: version-traceid-parentid-flags.
			if p := strings.Split(v, "-"); len(p) != 4 || len(p[1]) != 32 || len(p[2]) != 16 {
				return fmt.Errorf("trace=%q is not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)", v)
			}
		default:
			return fmt.Errorf("unknown argument %s=", k)
		}
	}
	return nil
}

func validActor(a string) error {
	if pipe, name, ok := strings.Cut(a, "/"); ok {
		if pipe != "naive" && pipe != "outbox" {
			return fmt.Errorf("actor %q: %q is not a pipeline (naive or outbox)", a, pipe)
		}
		a = name
	}
	if !slices.Contains(Actors, a) {
		return fmt.Errorf("unknown actor %q (known: %s; in compare mode naive/NAME or outbox/NAME names one pipeline's)", a, strings.Join(Actors, ", "))
	}
	return nil
}

// SplitActor splits an actor as a scene names it: "outbox/accounting" is the
// outbox pipeline's accounting, "accounting" that of every pipeline that runs
// one (compare mode runs two).
func SplitActor(a string) (pipeline, name string) {
	if p, n, ok := strings.Cut(a, "/"); ok {
		return p, n
	}
	return "", a
}

func validCheckpoint(c string) error {
	if !slices.Contains(Checkpoints, engine.Checkpoint(c)) {
		names := make([]string, len(Checkpoints))
		for i, cp := range Checkpoints {
			names[i] = string(cp)
		}
		return fmt.Errorf("unknown checkpoint %q (known: %s)", c, strings.Join(names, ", "))
	}
	return nil
}

func checkActor(s *Step) error {
	if len(s.Args) != 1 || len(s.KV) > 0 {
		return fmt.Errorf("want one actor")
	}
	return validActor(s.Args[0])
}

func checkActorAt(required bool) func(*Step) error {
	return func(s *Step) error {
		if len(s.KV) > 0 {
			return fmt.Errorf("unexpected key=value")
		}
		switch {
		case len(s.Args) == 1 && !required:
			return validActor(s.Args[0])
		case len(s.Args) == 3 && s.Args[1] == "at":
			if err := validActor(s.Args[0]); err != nil {
				return err
			}
			return validCheckpoint(s.Args[2])
		}
		return fmt.Errorf("want ACTOR at CHECKPOINT")
	}
}

func checkBroker(s *Step) error {
	if len(s.Args) != 1 || (s.Args[0] != "down" && s.Args[0] != "up") {
		return fmt.Errorf("want down or up")
	}
	return nil
}

func checkDuration(s *Step) error {
	if len(s.Args) != 1 {
		return fmt.Errorf("want one duration")
	}
	_, err := positiveDuration(s.Args[0])
	return err
}

func checkCount(s *Step) error {
	if len(s.Args) > 1 || len(s.KV) > 0 {
		return fmt.Errorf("want [N]")
	}
	if len(s.Args) == 1 {
		if _, err := atoiIn(s.Args[0], 1, 100000); err != nil {
			return err
		}
	}
	return nil
}

func checkStep(s *Step) error {
	if len(s.Args) < 1 || len(s.Args) > 2 || len(s.KV) > 0 {
		return fmt.Errorf("want ACTOR [N]")
	}
	if len(s.Args) == 2 {
		if _, err := atoiIn(s.Args[1], 1, 1000); err != nil {
			return err
		}
	}
	return validActor(s.Args[0])
}

func checkUntil(s *Step) error {
	if len(s.Args) != 2 || len(s.KV) > 0 {
		return fmt.Errorf("want ACTOR CHECKPOINT")
	}
	if err := validActor(s.Args[0]); err != nil {
		return err
	}
	return validCheckpoint(s.Args[1])
}

func checkPrune(s *Step) error {
	if len(s.Args) != 3 || (s.Args[0] != "inbox" && s.Args[0] != "outbox") || s.Args[1] != "older-than" {
		return fmt.Errorf("want inbox|outbox older-than DURATION")
	}
	_, err := positiveDuration(s.Args[2])
	return err
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// combine refuses settings that cannot run together, rather than run one
// and silently drop the other: an ordering is a claim of its own, which the
// relays that hold their transaction or poll by seq do not make.
func (s Settings) combine() error {
	if s.Ordering == "" || s.Ordering == engine.OrderingNone {
		return nil
	}
	switch {
	case s.HoldTx:
		return fmt.Errorf("ordering: %s needs the relay's claim; relay: hold-transaction makes another (drop one of the two headers)", s.Ordering)
	case s.SeqCursor:
		return fmt.Errorf("ordering: %s needs the relay's claim; relay: seq-cursor polls by seq instead (drop one of the two headers)", s.Ordering)
	}
	return nil
}
