package testdir

import (
	"os"
	"syscall"
)

// tmpfsMagic is statfs(2)'s f_type of a tmpfs (TMPFS_MAGIC).
const tmpfsMagic = 0x01021994

// ramDir is /dev/shm when it is a tmpfs this process can write in with at
// least free bytes available (a container's is often 64 MB), else "".
func ramDir(free uint64) string {
	const dir = "/dev/shm"
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || st.Type != tmpfsMagic {
		return ""
	}
	if st.Bavail*uint64(st.Bsize) < free {
		return ""
	}
	probe, err := os.MkdirTemp(dir, "outboxlab-probe-")
	if err != nil {
		return ""
	}
	_ = os.Remove(probe)
	return dir
}
