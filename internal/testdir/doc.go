// Package testdir makes the directories tests boot their throwaway
// PostgreSQL clusters in: on a RAM file system when the machine has one
// with room, else in the system's temporary directory.
//
// Why: the suite makes and drops thousands of files a minute (CREATE and
// DROP DATABASE copy and remove a few hundred files each, TRUNCATE makes
// new ones). On ext4 without a journal, as on this project's 2-core machine,
// every file made looks past each inode freed in the last minute
// (ext4's recently_deleted): a profile of the sim package's tests found
// 10% of PostgreSQL's CPU there, and the package on /dev/shm took 111 s
// of CPU against 126–142 s on /tmp. A test cluster runs with fsync off and
// is removed at the end, so RAM loses nothing a test keeps.
package testdir
