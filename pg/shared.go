package pg

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// attachShared is a second outboxlab on a data directory a live one owns: it
// uses the owner's server (its address from postmaster.pid, its password
// from the data directory) as an external one, which it never stops, instead
// of refusing. A learner can keep the simulator open and run `outboxlab
// serve`, `run` or another simulator beside it. inUse is returned when the
// owner's server cannot be reached.
func attachShared(ctx context.Context, opts Options, dataDir string, inUse error, start time.Time, progress func(Stage, string)) (*Server, error) {
	raw, err := os.ReadFile(filepath.Join(dataDir, "pgdata", "postmaster.pid"))
	if err != nil {
		return nil, inUse
	}
	lines := strings.Split(string(raw), "\n")
	if len(lines) < 4 || strings.TrimSpace(lines[3]) == "" {
		return nil, inUse
	}
	port := strings.TrimSpace(lines[3])
	pw, err := os.ReadFile(filepath.Join(dataDir, passwordFile))
	if err != nil {
		return nil, inUse
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(superuser, strings.TrimSpace(string(pw))),
		Host:     net.JoinHostPort("127.0.0.1", port),
		Path:     "/" + appDatabase,
		RawQuery: "sslmode=disable",
	}
	o := opts
	o.DatabaseURL = u.String()
	s, err := bootExternal(ctx, o, start, progress)
	if err != nil {
		return nil, fmt.Errorf("%w (and its server did not answer: %v)", inUse, err)
	}
	owner, _ := os.ReadFile(filepath.Join(dataDir, ownerFile))
	s.SharedWith = strings.TrimSpace(string(owner))
	s.DataDir = dataDir
	s.Binaries.Source = fmt.Sprintf("the server of outboxlab pid %s, which owns %s", s.SharedWith, dataDir)
	s.Account = "shared server"
	return s, nil
}
