//go:build windows

package pg

import (
	"os"
	"os/user"
	"syscall"
)

// currentAccount is always the invoking user on Windows. PostgreSQL refuses
// an Administrator there too, but pg_ctl and initdb deal with it themselves:
// they restart the server under a restricted token with the administrative
// rights removed (pg_ctl's CreateRestrictedProcess). So there is no account to
// switch to, as embedded-postgres also runs them plainly on Windows.
func currentAccount() (account, error) {
	name := "the invoking user"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return account{name: name, uid: -1, gid: -1}, nil
}

// procAttr puts a PostgreSQL program in a process group of its own: Windows
// delivers a console's Ctrl-C to every process attached to it except those in
// a new process group, so outboxlab gets it and stops the server cleanly.
func (a account) procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// fileOwner has no uid and gid to give on Windows, whose permissions are ACLs;
// can is never asked there anyway (the account is never switched).
func fileOwner(os.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }
