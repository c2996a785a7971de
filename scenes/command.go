package scenes

import (
	"strconv"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/engine/fault"
)

// The scene language's command words: the simulator, the screen's keys and
// the lessons name a command by these, never by a string of their own. A
// fault's command word is the fault's (package fault).
const (
	CmdRequest         = "request"
	CmdCapture         = "capture"
	CmdResend          = "resend"
	CmdResendOther     = "resend-other"
	CmdCrash           = string(fault.Crash)
	CmdStall           = string(fault.Stall)
	CmdFailCommit      = string(fault.FailCommit)
	CmdDropCommit      = string(fault.DropCommit)
	CmdResume          = "resume"
	CmdRestart         = "restart"
	CmdDuplicate       = string(fault.Duplicate)
	CmdBroker          = string(fault.Broker)
	CmdRestartPostgres = string(fault.RestartPostgres)
	CmdAdvance         = string(fault.Advance)
	CmdStep            = "step"
	CmdNext            = "next"
	CmdUntil           = "until"
	CmdFinish          = "finish"
	CmdRun             = "run"
	CmdDrain           = "drain"
	CmdRequeue         = "requeue"
	CmdPrune           = "prune"
)

// Arm is "FAULT ACTOR at CHECKPOINT": the fault fires when the actor next
// reaches the checkpoint.
func Arm(f fault.Fault, actor string, at engine.Checkpoint) Step {
	return Step{Cmd: string(f), Args: []string{actor, "at", string(at)}}
}

// CrashNow is "crash ACTOR": the actor dies where it is.
func CrashNow(actor string) Step { return Step{Cmd: CmdCrash, Args: []string{actor}} }

// Request is "request amount=N client=C key=K [poison]".
func Request(amountCents int, client, key string, poison bool) Step {
	st := Step{Cmd: CmdRequest, KV: map[string]string{"client": client}}
	if amountCents > 0 {
		st.KV["amount"] = strconv.Itoa(amountCents)
	}
	if key != "" {
		st.KV["key"] = key
	}
	if poison {
		st.Args = []string{"poison"}
	}
	return st
}

// Resend is "resend key=K": the same key and body again.
func Resend(key string) Step { return withKey(CmdResend, key) }

// ResendOther is "resend-other key=K": the same key with another body.
func ResendOther(key string) Step { return withKey(CmdResendOther, key) }

func withKey(cmd, key string) Step {
	if key == "" {
		return Step{Cmd: cmd}
	}
	return Step{Cmd: cmd, KV: map[string]string{"key": key}}
}

// Restart brings a crashed actor back.
func Restart(actor string) Step { return Step{Cmd: CmdRestart, Args: []string{actor}} }

// Resume lets a stalled actor go on.
func Resume(actor string) Step { return Step{Cmd: CmdResume, Args: []string{actor}} }

// StepActor moves one actor to its next checkpoint.
func StepActor(actor string) Step { return Step{Cmd: CmdStep, Args: []string{actor}} }

// Finish steps one actor until it has nothing left to do.
func Finish(actor string) Step { return Step{Cmd: CmdFinish, Args: []string{actor}} }

// Until steps one actor until it reaches the checkpoint.
func Until(actor string, at engine.Checkpoint) Step {
	return Step{Cmd: CmdUntil, Args: []string{actor, string(at)}}
}

// Advance moves the virtual clock forward ("advance 2m", not "2m0s").
func Advance(d time.Duration) Step { return Step{Cmd: CmdAdvance, Args: []string{Duration(d)}} }

// Duration writes d as a scene does: 2m, 1h30m, 31s, 1.5s.
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Broker takes the broker down or brings it up.
func Broker(up bool) Step {
	if up {
		return Step{Cmd: CmdBroker, Args: []string{"up"}}
	}
	return Step{Cmd: CmdBroker, Args: []string{"down"}}
}

// The commands that take no arguments.
var (
	Capture         = Step{Cmd: CmdCapture}
	Duplicate       = Step{Cmd: CmdDuplicate}
	RestartPostgres = Step{Cmd: CmdRestartPostgres}
	Next            = Step{Cmd: CmdNext}
	Run             = Step{Cmd: CmdRun}
	Drain           = Step{Cmd: CmdDrain}
	Requeue         = Step{Cmd: CmdRequeue}
)
