package scenes

import (
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/fault"
)

// Every command value writes a line the scene language reads back to the
// same command.
func TestCommandValuesReadBack(t *testing.T) {
	for _, tc := range []struct {
		st   Step
		want string
	}{
		{Request(1250, "acme", "k-1", false), "request amount=1250 client=acme key=k-1"},
		{Request(1500, "acme", "k-2", true), "request poison amount=1500 client=acme key=k-2"},
		{Arm(fault.Crash, "relay-1", engine.RelayPublished), "crash relay-1 at relay.published"},
		{Arm(fault.FailCommit, "naive", engine.NaiveInserted), "fail-commit naive at naive.inserted"},
		{CrashNow("outbox/accounting"), "crash outbox/accounting"},
		{Resend("k-3"), "resend key=k-3"},
		{ResendOther("k-3"), "resend-other key=k-3"},
		{Restart("api"), "restart api"},
		{Resume("relay-2"), "resume relay-2"},
		{StepActor("notifications"), "step notifications"},
		{Finish("api"), "finish api"},
		{Until("accounting", engine.ConsumerInboxInserted), "until accounting consumer.inbox_inserted"},
		{Advance(2 * time.Minute), "advance 2m"},
		{Advance(31 * time.Second), "advance 31s"},
		{Advance(90 * time.Minute), "advance 1h30m"},
		{Broker(false), "broker down"},
		{Broker(true), "broker up"},
		{Capture, "capture"}, {Duplicate, "duplicate"}, {RestartPostgres, "restart-postgres"},
		{Next, "next"}, {Run, "run"}, {Drain, "drain"}, {Requeue, "requeue"},
	} {
		if got := tc.st.String(); got != tc.want {
			t.Errorf("%+v writes %q, want %q", tc.st, got, tc.want)
		}
		sc, err := Parse("t", "t.scene", strings.NewReader("title: t\nteaches: t\nrelays: 2\nworkers: 2\nmode: compare\n"+tc.want+"\nexpect outbox lost_events == 0\n"))
		if err != nil {
			t.Errorf("%q does not parse: %v", tc.want, err)
			continue
		}
		if got := sc.Steps[0].String(); got != tc.want {
			t.Errorf("%q reads back as %q", tc.want, got)
		}
	}
}

// The table says which commands take an actor as its forms write them, and
// every command word the package names is in it, a fault's too.
func TestCommandTableSaysWhichTakeAnActor(t *testing.T) {
	for _, c := range Commands {
		f := strings.Fields(c.Form)
		if want := len(f) > 1 && f[1] == "ACTOR"; c.Actor != want {
			t.Errorf("%s: Actor %v, its form says %v", c.Form, c.Actor, want)
		}
	}
	for _, w := range []string{CmdRequest, CmdCapture, CmdResend, CmdResendOther, CmdCrash, CmdStall, CmdFailCommit, CmdDropCommit,
		CmdResume, CmdRestart, CmdDuplicate, CmdBroker, CmdRestartPostgres, CmdAdvance, CmdStep, CmdNext, CmdUntil, CmdFinish,
		CmdRun, CmdDrain, CmdRequeue, CmdPrune} {
		if _, ok := Lookup(w); !ok {
			t.Errorf("%s: not in the command table", w)
		}
	}
	for _, f := range fault.Armed {
		if c, ok := Lookup(string(f)); !ok || !c.Actor {
			t.Errorf("fault %s: a command that takes an actor? %v %v", f, ok, c.Actor)
		}
	}
	if !(Step{Cmd: CmdStep, Args: []string{"api"}}).TakesActor() || (Step{Cmd: CmdStep}).TakesActor() || (Step{Cmd: CmdDuplicate}).TakesActor() {
		t.Error("TakesActor: want true for step api only")
	}
}
