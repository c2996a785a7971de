package cli

import (
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/workshop"
	"github.com/spf13/cobra"
)

// newWorkshop is `outboxlab workshop`: the simulator for a whole room over
// SSH, one per learner on one PostgreSQL, and the room on this terminal
// for the instructor (lines on stdout without a terminal).
func newWorkshop() *cobra.Command {
	var (
		pf                                   pgFlags
		sshAddr, httpAddr, lang, keys, passw string
		webAddr                              string
		webPerAddr                           int
		report, roster, trustProxy           string
		anonymous, noReport                  bool
		maxLearners                          int
		stuck                                = workshop.DefaultStuck
		webIdle                              = workshop.DefaultWebIdle
	)
	cmd := &cobra.Command{
		Use:   "workshop",
		Short: "serve the simulator and the course over SSH, one per learner",
		Long: `serve the simulator and the course over SSH, one per learner
(ssh -p PORT NAME@HOST), on one PostgreSQL; this terminal
shows the room: each learner's lesson and step, who is stuck`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stdout := cmd.OutOrStdout()
			l, err := langFlag(lang)
			if err != nil {
				return err
			}
			if maxLearners < 1 {
				return badinput.Errorf("--max-learners %d: want at least 1", maxLearners)
			}
			if pf.databaseURL != "" {
				return badinput.New("--database-url: the room needs a PostgreSQL of its own (its max_connections sized for the room); leave it out")
			}
			if webAddr != "" && !cmd.Flags().Changed("ssh") {
				// --web alone: the browser door only.
				sshAddr = ""
			}
			ctx, cancel := signalContext()
			defer cancel()
			screen := term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
			if !screen {
				fmt.Fprintln(stdout, "outboxlab workshop: booting PostgreSQL…")
			}
			return workshop.Run(ctx, workshop.Config{SSH: sshAddr, Web: webAddr, WebIdle: webIdle, WebPerAddress: webPerAddr, HTTP: httpAddr, Lang: l, MaxLearners: maxLearners, AuthorizedKeys: keys,
				Password: passw, Stuck: stuck, PG: pf.options(), Out: stdout, Screen: screen, Report: report, Roster: roster,
				Anonymous: anonymous, NoReport: noReport, WebTrustProxy: trustProxy})
		},
	}
	fs := cmd.Flags()
	pf.register(fs)
	fs.StringVar(&sshAddr, "ssh", "127.0.0.1:2222", "where learners connect with ssh: `HOST:PORT` (0.0.0.0:2222 for a room on a LAN, with --password or --authorized-keys); with --web and no --ssh, the browser door alone")
	fs.StringVar(&webAddr, "web", "", "also let learners join from a browser at `HOST:PORT` (0.0.0.0:8080 for a room on a LAN, with --password)")
	fs.DurationVar(&webIdle, "web-idle", workshop.DefaultWebIdle, "end a web learner's session after this long without a key from their page")
	fs.IntVar(&webPerAddr, "web-per-address", workshop.DefaultWebPerAddress, "WebSockets one address may hold at once, `N` (raise it to the room's size when learners come through one NAT or proxy)")
	fs.StringVar(&httpAddr, "http", "", "also serve the room's /metrics at `HOST:PORT`")
	fs.StringVar(&lang, "lang", "", "the course's language for a learner whose ssh sends no LANG, and the instructor's: en or es (default: from LC_ALL or LANG)")
	fs.IntVar(&maxLearners, "max-learners", workshop.DefaultMaxLearners, "learners connected at once, `N`; PostgreSQL's max_connections is sized from it")
	fs.StringVar(&keys, "authorized-keys", "", "let in only the keys in this authorized_keys `FILE`")
	fs.StringVar(&passw, "password", "", "let in whoever gives this password `PW`")
	fs.DurationVar(&stuck, "stuck", workshop.DefaultStuck, "a learner on one step longer than this is shown stuck")
	fs.StringVar(&roster, "roster", "", "the names expected, one a line, in `FILE`: the room's list shows who has not joined yet")
	fs.StringVar(&report, "report", "", "when the room stops, write its report to `FILE`.json and FILE.csv (E writes one at any time)")
	fs.BoolVar(&anonymous, "anonymous", false, "name learners learner_1, learner_2… in the order they come, whatever name they give (the page asks none)")
	fs.BoolVar(&noReport, "no-report", false, "keep no record of a learner past their session: no report (E, --report), their progress removed as they leave")
	fs.StringVar(&trustProxy, "web-trust-proxy", "", "the reverse proxy's `ADDR` or network (comma-separated): its X-Forwarded-For names the learner's address for --web-per-address (without it the header is ignored)")
	completeFlags(cmd)
	return cmd
}
