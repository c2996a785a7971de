//go:build !linux

package testdir

// ramDir finds no RAM file system off Linux: the system's temporary
// directory is used.
func ramDir(uint64) string { return "" }
