package pg

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// EnvRunAs names the environment variable that picks the unprivileged account
// the server runs as when outboxlab itself runs as root.
const EnvRunAs = "OUTBOXLAB_PG_USER"

// account is who runs initdb, pg_ctl and the server. PostgreSQL refuses to run
// as root, and containers and CI run as root, so a root outboxlab runs them as
// an unprivileged account; any other user runs them as itself. This is the one
// path for both: the only difference is whether cred is set.
type account struct {
	name string
	uid  int
	gid  int
	cred *syscall.Credential // nil: run as the invoking user
}

func (a account) String() string {
	if a.cred == nil {
		return a.name + " (the invoking user)"
	}
	return fmt.Sprintf("%s (uid %d; outboxlab runs as root and PostgreSQL refuses root)", a.name, a.uid)
}

// currentAccount decides the account: the invoking user unless it is root;
// for root, $OUTBOXLAB_PG_USER, else "postgres", else "nobody".
func currentAccount() (account, error) {
	if os.Geteuid() != 0 {
		name := strconv.Itoa(os.Geteuid())
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
		return account{name: name, uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	candidates := []string{"postgres", "nobody"}
	if v := os.Getenv(EnvRunAs); v != "" {
		candidates = []string{v}
	}
	for _, name := range candidates {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if uid == 0 {
			continue
		}
		return account{name: name, uid: uid, gid: gid, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}, nil
	}
	return account{}, fmt.Errorf("outboxlab runs as root and PostgreSQL refuses to, but no unprivileged account (%v) exists: create one (useradd --system postgres) or set %s", candidates, EnvRunAs)
}

// command prepares a PostgreSQL program to run as the account. Its working
// directory is "/" because a root caller's cwd is often unreadable to it.
func (a account) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = "/"
	// A process group of its own: a Ctrl-C in the terminal reaches outboxlab,
	// which then stops the server cleanly, rather than killing the server mid-step.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: a.cred}
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	if a.cred != nil {
		cmd.Env = append(cmd.Env, "HOME=/")
	}
	return cmd
}

// own gives the account a path it must write (the data directory); a no-op
// when the server runs as the invoking user.
func (a account) own(path string) error {
	if a.cred == nil {
		return nil
	}
	return filepath.Walk(path, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, a.uid, a.gid)
	})
}

// checkReach fails with an actionable message when the account cannot reach
// path (every parent must be searchable), which happens when root points the
// data directory into its own home.
func (a account) checkReach(path string) error {
	if a.cred == nil {
		return nil
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		st, err := os.Stat(dir)
		if err != nil {
			return err
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if ok {
			mode := st.Mode().Perm()
			var can bool
			switch {
			case int(sys.Uid) == a.uid:
				can = mode&0o100 != 0
			case int(sys.Gid) == a.gid:
				can = mode&0o010 != 0
			default:
				can = mode&0o001 != 0
			}
			if !can {
				return fmt.Errorf("%s is not reachable by %s, the account PostgreSQL runs as (outboxlab runs as root): %s is mode %v; choose a directory outside it with --data-dir (e.g. %s)", path, a.name, dir, mode, rootStateDir)
			}
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}
