package pg

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	embeddedpostgres "github.com/fergusstrange/embedded-postgres"
)

// downloadVersion is the release embedded-postgres fetches when nothing else is
// found; its own constant, so a library upgrade moves it.
const downloadVersion = embeddedpostgres.V18

// downloadBinaries fetches PostgreSQL through embedded-postgres into
// cacheDir/pg/<version>, where later boots find it as "cached".
//
// embedded-postgres has no download-only entry point: Start() downloads and
// extracts, then initialises and starts a cluster. So it is pointed at a
// throwaway runtime directory; once bin/pg_ctl is in place the binaries are
// ours whatever happens next (as root its initdb step refuses to run, which is
// expected; otherwise the throwaway server is stopped and removed). Offline it
// fails within milliseconds, which is what lets this step sit in the chain.
func downloadBinaries(ctx context.Context, cacheDir string) (dir string, err error) {
	if cacheDir == "" {
		return "", fmt.Errorf("no cache directory")
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	target := filepath.Join(cacheDir, "pg", string(downloadVersion))
	scratch, err := os.MkdirTemp(cacheDir, "download-")
	if err != nil {
		return "", fmt.Errorf("scratch directory: %w", err)
	}
	defer os.RemoveAll(scratch)
	port, err := freePort()
	if err != nil {
		return "", err
	}
	before := embeddedLogFiles()
	defer removeNewEmbeddedLogFiles(before)

	var log bytes.Buffer
	db := embeddedpostgres.NewDatabase(embeddedpostgres.DefaultConfig().
		Version(downloadVersion).
		Port(uint32(port)).
		CachePath(filepath.Join(cacheDir, "downloads")).
		BinariesPath(target).
		RuntimePath(filepath.Join(scratch, "runtime")).
		DataPath(filepath.Join(scratch, "data")).
		Locale("C").
		Encoding("UTF8").
		StartParameters(map[string]string{"listen_addresses": "127.0.0.1"}).
		Logger(&log))
	startErr := db.Start()
	if startErr == nil {
		_ = db.Stop()
	}
	if isInstallation(target) {
		return target, nil
	}
	_ = os.RemoveAll(target)
	if startErr == nil {
		startErr = fmt.Errorf("no binaries after download")
	}
	return "", fmt.Errorf("embedded-postgres %s: %s", downloadVersion, firstLine(startErr.Error()))
}

// embedded-postgres writes its log through a temporary file it never removes.
func embeddedLogFiles() map[string]bool {
	m, _ := filepath.Glob(filepath.Join(os.TempDir(), "embedded_postgres_log*"))
	set := make(map[string]bool, len(m))
	for _, f := range m {
		set[f] = true
	}
	return set
}

func removeNewEmbeddedLogFiles(before map[string]bool) {
	for f := range embeddedLogFiles() {
		if !before[f] {
			_ = os.Remove(f)
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
