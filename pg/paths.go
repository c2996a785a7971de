package pg

import (
	"fmt"
	"os"
	"path/filepath"
)

// rootStateDir is where a root outboxlab keeps binaries and data: the server
// runs as an unprivileged account, which cannot reach root's home (0700).
const rootStateDir = "/var/cache/outboxlab"

// DefaultStateDir is outboxlab's cache directory: os.UserCacheDir()/outboxlab,
// or /var/cache/outboxlab when running as root.
func DefaultStateDir() (string, error) {
	if os.Geteuid() == 0 {
		return rootStateDir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the user cache directory: %w (pass --data-dir)", err)
	}
	return filepath.Join(base, "outboxlab"), nil
}
