//go:build unix

package pg

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

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
		return account{name: name, uid: uid, gid: gid, switched: true}, nil
	}
	return account{}, fmt.Errorf("outboxlab runs as root and PostgreSQL refuses to, but no unprivileged account (%v) exists: create one (useradd --system postgres) or set %s", candidates, EnvRunAs)
}

// procAttr puts a PostgreSQL program in a process group of its own (so
// runCmd can kill it and its children as one, and a terminal's Ctrl-C does
// not reach it) and, for a root outboxlab, runs it as the account with no
// supplementary groups.
func (a account) procAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if a.switched {
		attr.Credential = &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid), Groups: []uint32{}}
	}
	return attr
}

// fileOwner is the uid and gid that own a file, as its mode bits apply to them.
func fileOwner(st os.FileInfo) (uid, gid int, ok bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(sys.Uid), int(sys.Gid), true
}
