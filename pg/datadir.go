package pg

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// dataDirMarker is the file that makes a directory outboxlab's data
// directory. Without it a directory that holds anything is someone else's,
// and outboxlab refuses it rather than take it over.
const dataDirMarker = ".outboxlab-data-dir"

// stateDirMarker marks a state directory (binaries cache, default data
// directories) that outboxlab created, the one kind whose mode it may open.
const stateDirMarker = ".outboxlab-state-dir"

const (
	dataDirMarkerText  = "This directory is an outboxlab data directory (a PostgreSQL cluster in pgdata/, its password and log): outboxlab uses and changes what is in it; remove the whole directory to start over.\n"
	stateDirMarkerText = "outboxlab created this directory for its cached PostgreSQL binaries and data directories; remove it to start over.\n"
)

// ownFiles are the files outboxlab writes in a data directory, beside the
// cluster (pgdata) that initdb makes.
var ownFiles = []string{dataDirMarker, ownerFile, sharersFile, stoppingFile, portFile, passwordFile, logFile}

// BrokerDir is the directory of a data directory where serve --broker nats
// keeps its embedded JetStream's store: outboxlab's too, not a stranger.
const BrokerDir = "jetstream"

// claimDataDir makes s.DataDir outboxlab's, or refuses it, before anything
// in it is touched. A missing directory is created (0700, given to the
// account). An existing one is used if it carries the marker, is empty, or
// was made by an outboxlab from before the marker; it keeps its mode and
// owner, so an empty one the account cannot write is refused. Anything else
// is refused untouched. label names the directory in messages: "--data-dir"
// when the user passed it, "data directory" for the default.
func (s *Server) claimDataDir(label string) error {
	dir := s.DataDir
	// A directory the user named that cannot be made is theirs to change.
	userPath := func(err error) error {
		if label == "--data-dir" {
			return inputErr(label, err)
		}
		return err
	}
	if err := s.acct.checkReach(dir); err != nil {
		return userPath(err)
	}
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		created, err := s.createDataDir()
		if err != nil {
			return userPath(err)
		}
		if created {
			return nil
		}
		// Another process made it between our look and our mkdir: judge
		// it like any existing directory.
		st, err = os.Stat(dir)
	}
	if err != nil {
		return userPath(fmt.Errorf("%s %s: %w", label, dir, err))
	}
	if !st.IsDir() {
		return inputErr(label, said(nil, "%s %s: not a directory; pass an empty or new directory", label, dir))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return userPath(fmt.Errorf("%s %s: %w", label, dir, err))
	}
	switch {
	case hasMarker(dir):
		return nil
	case len(entries) == 0:
		if !s.acct.can(st, 0o3) {
			return inputErr(label, fmt.Errorf("%s %s: %s, the account PostgreSQL runs as (outboxlab runs as root), cannot write this empty directory (mode %v), and outboxlab changes the owner and mode only of what it creates; pass a path that does not exist yet, such as %s, which outboxlab will create for %s",
				label, dir, s.acct.name, st.Mode().Perm(), s.newPathNear(dir, st), s.acct.name))
		}
	case madeByEarlierOutboxlab(dir, entries):
		// Its files are outboxlab's: mark it so later boots need no guess.
	default:
		return inputErr(label, said(nil, "%s %s: it holds other files (e.g. %s) and is not an outboxlab data directory; pass an empty or new directory", label, dir, strangerIn(entries)))
	}
	if err := writeMarker(filepath.Join(dir, dataDirMarker), dataDirMarkerText); err != nil {
		return userPath(fmt.Errorf("%s %s: %w", label, dir, err))
	}
	return nil
}

// createDataDir makes a missing data directory and marks it; created is
// false when someone else made it first. Only here does outboxlab set a data
// directory's mode and owner: it is the one that made it.
func (s *Server) createDataDir() (created bool, err error) {
	dir := s.DataDir
	// Missing parents are made as the invoking user would; as root,
	// checkReach has already refused a path whose parents do not exist.
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return false, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	if err := os.Mkdir(dir, 0o700); errors.Is(err, fs.ErrExist) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("create data directory %s: %w", dir, err)
	}
	// The umask may have taken bits away; 0700 is what was meant.
	if err := os.Chmod(dir, 0o700); err != nil {
		return false, fmt.Errorf("data directory %s: %w", dir, err)
	}
	if err := writeMarker(filepath.Join(dir, dataDirMarker), dataDirMarkerText); err != nil {
		return false, fmt.Errorf("data directory %s: %w", dir, err)
	}
	if err := s.acct.own(dir); err != nil {
		return false, fmt.Errorf("give %s to %s: %w", dir, s.acct.name, err)
	}
	return true, nil
}

// ownDataDirFiles gives the account what outboxlab made inside its data
// directory: its own files and the cluster. The directory itself and
// anything else in it keep their owner.
func (s *Server) ownDataDirFiles() error {
	for _, name := range ownFiles {
		p := filepath.Join(s.DataDir, name)
		if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if err := s.acct.own(p); err != nil {
			return fmt.Errorf("give %s to %s: %w", p, s.acct.name, err)
		}
	}
	if st, err := os.Lstat(s.PGData); err == nil && st.IsDir() {
		if err := s.acct.ownTree(s.PGData); err != nil {
			return fmt.Errorf("give %s to %s: %w", s.PGData, s.acct.name, err)
		}
	}
	return nil
}

// hasMarker reports whether dir carries outboxlab's data directory marker.
func hasMarker(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, dataDirMarker))
	return err == nil && st.Mode().IsRegular()
}

// madeByEarlierOutboxlab recognises a data directory from before the marker:
// nothing in it but what outboxlab writes (the cluster, password, log, lock),
// and a file only outboxlab names so: the lock, or outboxlab.conf in the
// cluster (written at initdb by every version). A single unknown entry makes
// it someone else's, and so does a bare PostgreSQL cluster: that one may be
// a real server's.
func madeByEarlierOutboxlab(dir string, entries []os.DirEntry) bool {
	if len(entries) == 0 || !isOutboxlabName(strangerIn(entries)) {
		return false
	}
	for _, p := range []string{filepath.Join(dir, ownerFile), filepath.Join(dir, "pgdata", confFile)} {
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// strangerIn names an entry that is not outboxlab's, the best example of why
// a directory is refused; failing that, the first.
func strangerIn(entries []os.DirEntry) string {
	for _, e := range entries {
		if !isOutboxlabName(e.Name()) {
			return e.Name()
		}
	}
	return entries[0].Name()
}

// isOutboxlabName reports whether name is one outboxlab gives an entry of
// its data directory.
func isOutboxlabName(name string) bool {
	return name == "pgdata" || name == BrokerDir || slices.Contains(ownFiles, name)
}

// writeMarker creates a marker file; one already there (a concurrent
// outboxlab's) is as good.
func writeMarker(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// newPathNear suggests a path that does not exist yet for a refused empty
// directory: inside it when the account can pass through it, else beside it.
func (s *Server) newPathNear(dir string, st os.FileInfo) string {
	base := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-outboxlab")
	if s.acct.can(st, 0o1) {
		base = filepath.Join(dir, "outboxlab")
	}
	cand := base
	for i := 2; i < 100; i++ {
		if _, err := os.Lstat(cand); errors.Is(err, fs.ErrNotExist) {
			break
		}
		cand = base + "-" + strconv.Itoa(i)
	}
	return cand
}

// ensureStateDir makes outboxlab's state directory. As root it must be
// searchable (0711) so the server's account can pass through it to its data
// directory and the cached binaries; outboxlab sets that mode only on a
// directory it created (now, or earlier: the marker says so). Another
// directory keeps its mode, and checkReach explains if the account is
// stopped there.
func ensureStateDir(state string) error {
	_, err := os.Lstat(state)
	existed := err == nil
	if err := os.MkdirAll(state, 0o700); err != nil {
		return fmt.Errorf("state directory %s: %w (pass --data-dir)", state, err)
	}
	marker := filepath.Join(state, stateDirMarker)
	if !existed {
		if err := writeMarker(marker, stateDirMarkerText); err != nil {
			return fmt.Errorf("state directory %s: %w", state, err)
		}
	}
	if os.Geteuid() != 0 {
		return nil
	}
	if st, err := os.Lstat(marker); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	st, err := os.Stat(state)
	if err != nil {
		return fmt.Errorf("state directory %s: %w", state, err)
	}
	if st.Mode().Perm() != 0o711 {
		if err := os.Chmod(state, 0o711); err != nil {
			return fmt.Errorf("state directory %s: %w", state, err)
		}
	}
	return nil
}
