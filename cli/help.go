package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// commands is the root's list of commands, as `outboxlab --help` and
// `outboxlab help` print it above the root's flags.
const commands = `outboxlab: learn reliable event delivery (transactional outbox, relay, inbox)
by breaking a real one.

Usage:
  outboxlab [flags]             open the simulator
  outboxlab --lesson NAME [--lang en|es]
                                open a guided lesson (its checks pass as you do its tasks)
  outboxlab lessons [--lang en|es] [--reset [NAME]]
                                list the lessons, done or not; --reset forgets progress
  outboxlab play SCENE|LESSON [--speed X] [--lang en|es] [--record FILE.cast]
                                play a scene or a lesson by itself, with captions, then exit
  outboxlab doctor [flags]      boot the embedded PostgreSQL, report, stop (exit 0 ok,
                                1 it failed, 2 bad flags or no PostgreSQL to use)
  outboxlab serve [flags]       boot PostgreSQL and keep it up (prints its URL for psql) until Ctrl-C;
                                with --http HOST:PORT also a simulation live, in real time, behind
                                its HTTP API (POST /payments, GET /payments/{id}, GET /metrics);
                                --broker nats|nats://HOST:PORT[,…] runs the engine for real on JetStream
                                (--replicas N copies of its stream on a cluster); its database
                                live_outbox and its stream are kept across restarts, --fresh empties them
  outboxlab live [--broker nats|nats://HOST:PORT[,…]] [--replicas N] [--http HOST:PORT] [--lang en|es]
                                the engine running for real on JetStream, live on screen: post
                                payments, crash or stall an actor, stop and start the broker;
                                --http also serves its API, faults and /metrics; kept across
                                restarts like serve --broker's (--fresh empties it)
  outboxlab workshop --ssh HOST:PORT [--http ADDR] [--lang en|es] [--max-learners N]
                [--authorized-keys FILE] [--password PW] [--stuck 10m]
                                serve the simulator and the course over SSH, one per learner
                                (ssh -p PORT NAME@HOST), on one PostgreSQL; this terminal
                                shows the room: each learner's lesson and step, who is stuck
  outboxlab scenes [--scenes DIR]
                                list the scenes, one line each
  outboxlab run SCENE [--mode outbox|naive|compare] [--variant NAME] [--seed N] [--json]
                                run a scene headless: its timeline, then a summary;
                                exit 0 if its expected outcome held, 1 if not, 2 on bad input
  outboxlab story SCENE [--message N|ID] [--pipeline outbox|naive] [--width W] [--mermaid] [--lang en|es]
                                run a scene headless and draw one message's life as a
                                sequence diagram (--mermaid: a Mermaid sequenceDiagram)
  outboxlab chaos [--runs N] [--seed S] [--mode compare|outbox|naive] [--variant NAME]
                [--faults LIST] [--parallel K] [--from I] [--out DIR] [--json]
                                run seeded random fault schedules; print how often the naive
                                write lost or invented events and whether the outbox broke
                                anything; shrink each violation to a scene (exit 1 if any)
  outboxlab version | --version print the version (release, commit, Go, platform)
  outboxlab completion bash|zsh|fish
                                print the shell's completion script (scene and lesson names
                                complete); outboxlab completion bash --help says where it goes
  outboxlab COMMAND --help      the command's flags

--record FILE.cast (the simulator, a lesson or play) writes an asciicast v2
recording of the terminal, for asciinema play. The lessons' language defaults
from LC_ALL or LANG. Flags take one dash or two (-seed 3, --seed 3).
`

// setHelp gives the root the command list above and its flags; every other
// command keeps cobra's layout (its description, usage line and flags).
func setHelp(root *cobra.Command) {
	def := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c != root {
			def(c, args)
			return
		}
		out := c.OutOrStdout()
		fmt.Fprint(out, commands)
		fmt.Fprintf(out, "\nFlags:\n%s", c.LocalFlags().FlagUsages())
	})
}
