package main

import (
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/workshop"
)

// workshopRoom is `outboxlab workshop`: the simulator for a whole room over
// SSH, one per learner on one PostgreSQL, and the room on this terminal
// for the instructor (lines on stdout without a terminal).
func workshopRoom(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("workshop", stderr)
	var pf pgFlags
	pf.register(fs)
	sshAddr := fs.String("ssh", "127.0.0.1:2222", "where learners connect: `HOST:PORT` (0.0.0.0:2222 for a room on a LAN, with --password or --authorized-keys)")
	httpAddr := fs.String("http", "", "also serve the room's /metrics at `HOST:PORT`")
	lang := fs.String("lang", "", "the course's language for a learner whose ssh sends no LANG, and the instructor's: en or es (default: from LC_ALL or LANG)")
	maxLearners := fs.Int("max-learners", workshop.DefaultMaxLearners, "learners connected at once, `N`; PostgreSQL's max_connections is sized from it")
	keys := fs.String("authorized-keys", "", "let in only the keys in this authorized_keys `FILE`")
	password := fs.String("password", "", "let in whoever gives this password `PW`")
	stuck := fs.Duration("stuck", workshop.DefaultStuck, "a learner on one step longer than this is shown stuck")
	if err := parse(fs, args); err != nil {
		return exitUsage
	}
	l, err := langFlag(*lang)
	if err != nil {
		fmt.Fprintf(stderr, "outboxlab workshop: %v\n", err)
		return exitUsage
	}
	if *maxLearners < 1 {
		fmt.Fprintf(stderr, "outboxlab workshop: --max-learners %d: want at least 1\n", *maxLearners)
		return exitUsage
	}
	if pf.databaseURL != "" {
		fmt.Fprintln(stderr, "outboxlab workshop: --database-url: the room needs a PostgreSQL of its own (its max_connections sized for the room); leave it out")
		return exitUsage
	}
	ctx, cancel := signalContext()
	defer cancel()
	screen := term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
	if !screen {
		fmt.Fprintln(stdout, "outboxlab workshop: booting PostgreSQL…")
	}
	err = workshop.Run(ctx, workshop.Config{SSH: *sshAddr, HTTP: *httpAddr, Lang: l, MaxLearners: *maxLearners, AuthorizedKeys: *keys,
		Password: *password, Stuck: *stuck, PG: pf.options(nil), Out: stdout, Screen: screen})
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "outboxlab workshop: %v\n", err)
	if badinput.Is(err) {
		return exitUsage
	}
	return exitFail
}
