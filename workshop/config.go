package workshop

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	gossh "golang.org/x/crypto/ssh"
)

// Config is what `outboxlab workshop` was asked.
type Config struct {
	// SSH is the address learners connect to (HOST:PORT; port 0 picks one;
	// "" = no SSH door, the web door alone).
	SSH string
	// Web is where learners join from a browser (HOST:PORT; "" = no web
	// page; port 0 picks one).
	Web string
	// WebIdle ends a web learner's session after this long without a key
	// or a resize from their page (0 = DefaultWebIdle).
	WebIdle time.Duration
	// WebPerAddress is how many WebSockets one address may hold at once
	// (0 = DefaultWebPerAddress).
	WebPerAddress int
	// HTTP serves /metrics at this address ("" = none).
	HTTP string
	// Lang is the course's language for a learner whose client sent no
	// LANG (en or es; "" = en).
	Lang string
	// MaxLearners is how many learners may be connected at once (0 = 40):
	// it sizes PostgreSQL's max_connections too.
	MaxLearners int
	// SpareSeats is how many learners' databases the room keeps made
	// before they join (spares.go), at most MaxLearners (0 = MaxLearners,
	// a class arriving at once; -1 = none, each learner's cloned as they
	// join).
	SpareSeats int
	// AuthorizedKeys lets in only the keys of this authorized_keys file.
	AuthorizedKeys string
	// Password lets in whoever gives it.
	Password string
	// Stuck is how long on one step makes a learner "stuck" (0 = 10m).
	Stuck time.Duration
	// PG boots the room's PostgreSQL; its DataDir (or the default one)
	// holds the room too: the host key and each learner's progress.
	PG pg.Options
	// Out is where the room's lines go without an instructor's screen.
	Out io.Writer
	// Screen shows the instructor's screen on the terminal (stdin and
	// stdout) instead of logging lines to Out.
	Screen bool
	// Ready, if set, is called once learners can connect, with the SSH
	// and HTTP addresses the room listens on.
	Ready func(ssh, http string)
	// Report, when set, is where the room's report goes when it stops
	// (REPORT.json and REPORT.csv).
	Report string
	// Roster, when set, is a file of the names expected, one a line: the
	// list shows who has not joined yet.
	Roster string
	// Anonymous names every learner learner_N in the order they come,
	// whatever name they give (the page asks none): a public room learns
	// nobody's name.
	Anonymous bool
	// NoReport keeps no record of a learner past their session: no
	// report (E, Report), and their folder (progress, counts) removed
	// and their line taken off the list as their session ends.
	NoReport bool
	// WebTrustProxy are the addresses of reverse proxies whose
	// X-Forwarded-For names the learner's address, for the per-address
	// cap ("" trusts none: the header is anyone's to forge).
	WebTrustProxy  string
	trustedProxies []*net.IPNet
}

// DefaultMaxLearners is --max-learners's default.
const DefaultMaxLearners = 40

// DefaultStuck is --stuck's default.
const DefaultStuck = 10 * time.Minute

// usagef is bad input: the caller's to fix, refused before anything starts
// (exit 2).
func usagef(format string, args ...any) error { return badinput.Errorf(format, args...) }

// check fills defaults and refuses what cannot serve a room.
func (c *Config) check() error {
	if c.MaxLearners == 0 {
		c.MaxLearners = DefaultMaxLearners
	}
	if c.MaxLearners < 1 || c.MaxLearners > 500 {
		return usagef("--max-learners %d: want 1 to 500", c.MaxLearners)
	}
	if c.Stuck == 0 {
		c.Stuck = DefaultStuck
	}
	if c.Stuck < 0 {
		return usagef("--stuck %s: want a positive duration", c.Stuck)
	}
	if c.Lang == "" {
		c.Lang = "en"
	}
	l, err := lessons.ParseLang(c.Lang)
	if err != nil {
		return usagef("--lang: %v", err)
	}
	c.Lang = l
	if c.Out == nil {
		c.Out = io.Discard
	}
	if c.Roster != "" {
		if _, err := readRoster(c.Roster); err != nil {
			return badinput.Wrap(err)
		}
	}
	if c.NoReport && c.Report != "" {
		return usagef("--report %s with --no-report: a room that keeps no record writes no report; give one or the other", c.Report)
	}
	if c.Report != "" {
		dir := filepath.Dir(c.Report)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return usagef("--report %s: no directory %s to write it in", c.Report, dir)
		}
	}
	if c.SSH == "" && c.Web == "" {
		return usagef("the room needs a door: --ssh HOST:PORT, --web HOST:PORT, or both")
	}
	host := "127.0.0.1" // no SSH door: nothing listens beyond this machine for it
	if c.SSH != "" {
		var err error
		if host, _, err = net.SplitHostPort(c.SSH); err != nil {
			return usagef("--ssh %q: want HOST:PORT (127.0.0.1:2222 for this machine, 0.0.0.0:2222 for a room on a LAN)", c.SSH)
		}
	}
	if c.AuthorizedKeys != "" {
		if _, err := readAuthorizedKeys(c.AuthorizedKeys); err != nil {
			return badinput.Wrap(err)
		}
	}
	if err := c.checkWeb(); err != nil {
		return err
	}
	if c.AuthorizedKeys == "" && c.Password == "" && !loopback(host) {
		return usagef("--ssh %s listens beyond this machine, where anyone who reaches the port would get a simulator: give --password PW (say it in the room) or --authorized-keys FILE (the attendees' public keys), or listen on 127.0.0.1", c.SSH)
	}
	return nil
}

// checkWeb refuses a web door that cannot serve a room safely: one
// beyond this machine without a password (the page has no keys to check).
func (c *Config) checkWeb() error {
	if c.WebIdle == 0 {
		c.WebIdle = DefaultWebIdle
	}
	if c.WebIdle < 0 {
		return usagef("--web-idle %s: want a positive duration", c.WebIdle)
	}
	if c.WebPerAddress == 0 {
		c.WebPerAddress = DefaultWebPerAddress
	}
	if c.WebPerAddress < 1 {
		return usagef("--web-per-address %d: want at least 1", c.WebPerAddress)
	}
	c.trustedProxies = nil
	for _, p := range strings.Split(c.WebTrustProxy, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		cidr := p
		if ip := net.ParseIP(p); ip != nil {
			cidr = p + "/128"
			if ip.To4() != nil {
				cidr = p + "/32"
			}
		}
		_, n, err := net.ParseCIDR(cidr)
		if err != nil {
			return usagef("--web-trust-proxy %q: want the proxy's address or network (127.0.0.1, 10.0.0.0/8), comma-separated", p)
		}
		c.trustedProxies = append(c.trustedProxies, n)
	}
	if c.Web == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(c.Web)
	if err != nil {
		return usagef("--web %q: want HOST:PORT (127.0.0.1:8080 for this machine, 0.0.0.0:8080 for a room on a LAN)", c.Web)
	}
	if c.Password == "" && !loopback(host) {
		return usagef("--web %s listens beyond this machine, where anyone who reaches the port would get a simulator: give --password PW (say it in the room), or listen on 127.0.0.1", c.Web)
	}
	return nil
}

// loopback says whether host only answers this machine: localhost or a
// loopback IP ("" and 0.0.0.0 listen on every interface).
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// access says who is let in, for the instructor's screen.
func (c *Config) access(w words) string {
	switch {
	case c.AuthorizedKeys != "" && c.Password != "":
		return fmt.Sprintf(w.accessBoth, c.AuthorizedKeys)
	case c.AuthorizedKeys != "":
		return fmt.Sprintf(w.accessKeys, c.AuthorizedKeys)
	case c.Password != "":
		return w.accessPassword
	}
	return w.accessOpen
}

// readAuthorizedKeys parses an authorized_keys file: one key a line,
// comments and blank lines skipped; a file with no key is refused.
func readAuthorizedKeys(path string) ([]gossh.PublicKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--authorized-keys: %w", err)
	}
	defer f.Close()
	var keys []gossh.PublicKey
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, _, _, _, err := gossh.ParseAuthorizedKey([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("--authorized-keys %s:%d: %w", path, n, err)
		}
		keys = append(keys, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--authorized-keys %s: %w", path, err)
	}
	if len(keys) == 0 {
		return nil, errors.New("--authorized-keys " + path + ": no key in it (one `ssh-ed25519 AAAA… name` line per attendee)")
	}
	return keys, nil
}

// readRoster reads --roster: a name a line (as each will type it after
// ssh … or in the browser), blank lines and # comments skipped.
func readRoster(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--roster: %w", err)
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			names = append(names, line)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("--roster %s: no name in it (one a line)", path)
	}
	return names, nil
}
