package pg

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// EnvRunAs names the environment variable that picks the unprivileged account
// the server runs as when outboxlab itself runs as root.
const EnvRunAs = "OUTBOXLAB_PG_USER"

// account is who runs initdb, pg_ctl and the server. PostgreSQL refuses to run
// as root, and containers and CI run as root, so a root outboxlab on Unix runs
// them as an unprivileged account; any other user (and every user on Windows,
// see account_windows.go) runs them as itself. This is the one path for both:
// the only difference is whether switched is set.
type account struct {
	name     string
	uid      int
	gid      int
	switched bool // false: run as the invoking user
}

func (a account) String() string {
	if !a.switched {
		return a.name + " (the invoking user)"
	}
	return fmt.Sprintf("%s (uid %d; outboxlab runs as root and PostgreSQL refuses root)", a.name, a.uid)
}

// command prepares a PostgreSQL program to run as the account. Its working
// directory is "/" because a root caller's cwd is often unreadable to it.
func (a account) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = "/"
	// A process group of its own: a Ctrl-C in the terminal reaches outboxlab,
	// which then stops the server cleanly, rather than killing the server mid-step.
	cmd.SysProcAttr = a.procAttr()
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	if a.switched {
		cmd.Env = append(cmd.Env, "HOME=/")
	}
	return cmd
}

// own gives the account one path outboxlab made (a directory it created, a
// file it wrote) that the server must write; a no-op when the server runs as
// the invoking user. It never walks into a directory: what outboxlab did not
// make keeps its owner.
func (a account) own(path string) error {
	if !a.switched {
		return nil
	}
	return os.Lchown(path, a.uid, a.gid)
}

// ownTree gives the account a whole tree outboxlab made (the cluster,
// pgdata), as a safety net for files a root outboxlab wrote into it.
func (a account) ownTree(path string) error {
	if !a.switched {
		return nil
	}
	return filepath.Walk(path, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, a.uid, a.gid)
	})
}

// can reports whether the account may use a directory as its mode bits say:
// want is a mask of 4 (read), 2 (write) and 1 (search). The account has no
// supplementary groups (see currentAccount), so owner, group and other are
// the whole story, ACLs aside. The invoking user is not checked: its own
// attempt tells.
func (a account) can(st os.FileInfo, want os.FileMode) bool {
	uid, gid, ok := fileOwner(st)
	if !a.switched || !ok {
		return true
	}
	mode := st.Mode().Perm()
	switch {
	case uid == a.uid:
		return (mode>>6)&want == want
	case gid == a.gid:
		return (mode>>3)&want == want
	default:
		return mode&want == want
	}
}

// checkReach fails with an actionable message when the account cannot reach
// path (every parent must be searchable), which happens when root points the
// data directory into its own home.
func (a account) checkReach(path string) error {
	if !a.switched {
		return nil
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		st, err := os.Stat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			// As root, a parent made here would be root's and 0700: the
			// account could not pass it. The user makes it, or picks another.
			return fmt.Errorf("%s: its parent %s does not exist; create it (searchable by %s) or choose another directory with --data-dir", path, dir, a.name)
		}
		if err != nil {
			return fmt.Errorf("%s: check that %s can reach it: %w", path, a.name, err)
		}
		if !a.can(st, 0o1) {
			advice := said(nil, "choose a directory outside it with --data-dir (e.g. %s)", rootStateDir)
			if dir == rootStateDir || strings.HasPrefix(rootStateDir, dir+string(filepath.Separator)) || dir == "/" {
				// The usual example is inside the blocked directory; and
				// outboxlab changes the mode only of directories it created.
				advice = said(nil, "outboxlab did not create %s and leaves its mode alone: make it searchable (chmod o+x %s) or choose another directory with --data-dir", dir, dir)
			}
			return said(nil, "%s is not reachable by %s, the account PostgreSQL runs as (outboxlab runs as root): %s is mode %v; %s", path, a.name, dir, st.Mode().Perm(), advice)
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}
