package pg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stranger is a uid:gid no account on the machine uses, for files that are
// plainly someone else's.
const stranger = 4321

// snapshot records what outboxlab must not change in a directory it refuses
// or adopts: every path under it with mode, owner and mtime.
func snapshot(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(root, func(p string, st os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		sys := st.Sys().(*syscall.Stat_t)
		rel, _ := filepath.Rel(root, p)
		out = append(out, fmt.Sprintf("%s %v %d:%d %d", rel, st.Mode(), sys.Uid, sys.Gid, st.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// someoneElses makes path (a file, or a directory when body is nil) look
// like a user's: an old mtime and, as root, a stranger's ownership.
func someoneElses(t *testing.T, path string, mode os.FileMode, body []byte) {
	t.Helper()
	var err error
	if body == nil {
		err = os.Mkdir(path, mode)
	} else {
		err = os.WriteFile(path, body, mode)
	}
	if err == nil {
		err = os.Chmod(path, mode)
	}
	if err == nil && os.Geteuid() == 0 {
		err = os.Lchown(path, stranger, stranger)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err == nil {
		err = os.Chtimes(path, old, old)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A directory that holds anything but outboxlab's own files is refused as
// bad input, and nothing in it changes: mode, owner, mtime, file list.
func TestForeignDataDirIsRefusedUntouched(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) // dir exists when called
		say   string
	}{
		{"other files", func(t *testing.T, dir string) {
			someoneElses(t, filepath.Join(dir, "notes.txt"), 0o640, []byte("mine\n"))
			someoneElses(t, filepath.Join(dir, "sub"), 0o700, nil)
			someoneElses(t, filepath.Join(dir, "sub", "deep"), 0o600, []byte("x"))
		}, "it holds other files (e.g. notes.txt) and is not an outboxlab data directory; pass an empty or new directory"},
		{"a cluster beside a stranger", func(t *testing.T, dir string) {
			someoneElses(t, filepath.Join(dir, "pgdata"), 0o700, nil)
			someoneElses(t, filepath.Join(dir, "pgdata", "PG_VERSION"), 0o600, []byte("15\n"))
			someoneElses(t, filepath.Join(dir, "password"), 0o600, []byte("pw\n"))
			someoneElses(t, filepath.Join(dir, "thesis.tex"), 0o644, []byte("\\begin"))
		}, "it holds other files (e.g. thesis.tex)"},
		{"a bare cluster", func(t *testing.T, dir string) {
			someoneElses(t, filepath.Join(dir, "pgdata"), 0o700, nil)
			someoneElses(t, filepath.Join(dir, "pgdata", "PG_VERSION"), 0o600, []byte("15\n"))
		}, "it holds other files (e.g. pgdata) and is not an outboxlab data directory"},
		{"only a password file", func(t *testing.T, dir string) {
			someoneElses(t, filepath.Join(dir, "password"), 0o600, []byte("hunter2\n"))
		}, "is not an outboxlab data directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			parent := tempParent(t)
			dir := filepath.Join(parent, "home")
			c.setup(t, func() string { someoneElses(t, dir, 0o750, nil); return dir }())
			// Setting up children moved the directory's mtime: set it back.
			old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
			if err := os.Chtimes(dir, old, old); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)

			_, err := Boot(context.Background(), Options{DataDir: dir, NoDownload: true})
			if !errors.Is(err, ErrBadDataDir) || !IsInputError(err) {
				t.Fatalf("boot on %s: %v, want a refused data directory (ErrBadDataDir, an InputError)", c.name, err)
			}
			if want := "--data-dir " + dir + ": "; !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), c.say) {
				t.Errorf("error %q, want it to start %q and say %q", err, want, c.say)
			}
			if after := snapshot(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Errorf("the refused directory changed:\nbefore:\n%s\nafter:\n%s", strings.Join(before, "\n"), strings.Join(after, "\n"))
			}
		})
	}
}

// A path that is a file is refused the same way.
func TestDataDirThatIsAFileIsRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(tempParent(t), "file")
	someoneElses(t, path, 0o644, []byte("x"))
	before := snapshot(t, path)
	_, err := Boot(context.Background(), Options{DataDir: path, NoDownload: true})
	if !errors.Is(err, ErrBadDataDir) || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("boot on a file: %v, want a refused data directory saying it is not a directory", err)
	}
	if after := snapshot(t, path); strings.Join(after, "") != strings.Join(before, "") {
		t.Errorf("the file changed: %v → %v", before, after)
	}
}

// A new path is created, marked, private (0700) and given to the account;
// booting on it again (marked now) reuses the cluster.
func TestNewDataDirIsMarkedAndReused(t *testing.T) {
	t.Parallel()
	dir := tempDataDir(t)
	srv, err := Boot(context.Background(), Options{DataDir: dir, NoDownload: true})
	if err != nil {
		t.Fatal(err)
	}
	owner := processUID(t, postmasterPID(t, srv))
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, dataDirMarker))
	if err != nil || !strings.Contains(string(raw), "outboxlab data directory") {
		t.Errorf("marker: %q, %v", raw, err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if uid := int(st.Sys().(*syscall.Stat_t).Uid); st.Mode().Perm() != 0o700 || uid != owner {
		t.Errorf("new data directory: mode %v owner %d, want 0700 and the server's account %d", st.Mode().Perm(), uid, owner)
	}

	again := boot(t, Options{DataDir: dir, NoDownload: true})
	if again.Cold {
		t.Errorf("boot on a marked data directory ran initdb again")
	}
}

// An empty directory outboxlab did not create is used, but its mode and
// owner stay as they were.
func TestEmptyDataDirIsAdoptedUntouched(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(tempParent(t), "empty")
	// World-writable, so the server's account can write it however it is
	// owned; as root, owned by a stranger, which outboxlab must leave so.
	someoneElses(t, dir, 0o777, nil)
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := boot(t, Options{DataDir: dir, NoDownload: true})
	if err := connect(t, srv).Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !hasMarker(dir) {
		t.Errorf("the adopted directory has no marker")
	}
	now, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	was, is := st.Sys().(*syscall.Stat_t), now.Sys().(*syscall.Stat_t)
	if now.Mode() != st.Mode() || was.Uid != is.Uid || was.Gid != is.Gid {
		t.Errorf("adopted directory changed: mode %v→%v, owner %d:%d→%d:%d", st.Mode(), now.Mode(), was.Uid, was.Gid, is.Uid, is.Gid)
	}
}

// An empty directory the server's account cannot write is refused, with a
// new path to use instead, and left as it was.
func TestEmptyDataDirTheAccountCannotWriteIsRefused(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(tempParent(t), "readonly")
	someoneElses(t, dir, 0o555, nil)
	before := snapshot(t, dir)
	_, err := Boot(context.Background(), Options{DataDir: dir, NoDownload: true})
	if !errors.Is(err, ErrBadDataDir) {
		t.Fatalf("boot on an empty directory the account cannot write: %v, want ErrBadDataDir", err)
	}
	if after := snapshot(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("the refused directory changed:\n%s\n→\n%s", strings.Join(before, "\n"), strings.Join(after, "\n"))
	}
	if os.Geteuid() != 0 {
		return // the invoking user's own refusal (EACCES) is the whole story
	}
	suggested := filepath.Join(dir, "outboxlab")
	if !strings.Contains(err.Error(), "cannot write this empty directory") || !strings.Contains(err.Error(), "such as "+suggested) {
		t.Errorf("error %q, want the reason and the suggestion %s", err, suggested)
	}
	// The suggestion works: outboxlab creates it, for the account, and the
	// directory around it keeps its mode and owner.
	srv := boot(t, Options{DataDir: suggested, NoDownload: true})
	if err := connect(t, srv).Ping(context.Background()); err != nil {
		t.Errorf("the suggested path: %v", err)
	}
	if got := snapshot(t, dir)[0]; got[strings.Index(got, " "):strings.LastIndex(got, " ")] != before[0][strings.Index(before[0], " "):strings.LastIndex(before[0], " ")] {
		t.Errorf("booting in the suggested path changed its parent: %s → %s", before[0], got)
	}
}

// A data directory from before the marker is adopted, whether it has the
// lock file (recent versions) or only the cluster's outboxlab.conf (the
// first ones): the cluster is reused and the marker written.
func TestDataDirFromBeforeTheMarkerIsAdopted(t *testing.T) {
	t.Parallel()
	dir := tempDataDir(t)
	first, err := Boot(context.Background(), Options{DataDir: dir, NoDownload: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, remove := range [][]string{{dataDirMarker}, {dataDirMarker, ownerFile}} {
		for _, name := range remove {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		srv, err := Boot(context.Background(), Options{DataDir: dir, NoDownload: true})
		if err != nil {
			t.Fatalf("without %v: %v", remove, err)
		}
		if srv.Cold {
			t.Errorf("without %v: the earlier cluster was not reused (initdb ran)", remove)
		}
		if !hasMarker(dir) {
			t.Errorf("without %v: the adopted directory was not marked", remove)
		}
		if err := srv.Stop(); err != nil {
			t.Fatal(err)
		}
	}
}

// The state directory is opened to the server's account (0711, as root)
// only when outboxlab created it or marked it earlier.
func TestStateDirModeChangesOnlyWhenOutboxlabMadeIt(t *testing.T) {
	t.Parallel()
	opened := os.FileMode(0o700)
	if os.Geteuid() == 0 {
		opened = 0o711
	}
	parent := tempParent(t)
	mode := func(p string) os.FileMode {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode().Perm()
	}

	made := filepath.Join(parent, "new")
	if err := ensureStateDir(made); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(made, stateDirMarker)); err != nil || mode(made) != opened {
		t.Errorf("a state directory outboxlab made: mode %v (marker: %v), want %v and a marker", mode(made), err, opened)
	}

	theirs := filepath.Join(parent, "theirs")
	someoneElses(t, theirs, 0o700, nil)
	before := snapshot(t, theirs)
	if err := ensureStateDir(theirs); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, theirs); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("a state directory outboxlab did not make changed:\n%s\n→\n%s", strings.Join(before, "\n"), strings.Join(after, "\n"))
	}

	marked := filepath.Join(parent, "marked")
	if err := os.Mkdir(marked, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeMarker(filepath.Join(marked, stateDirMarker), stateDirMarkerText); err != nil {
		t.Fatal(err)
	}
	if err := ensureStateDir(marked); err != nil {
		t.Fatal(err)
	}
	if mode(marked) != opened {
		t.Errorf("a marked state directory: mode %v, want %v", mode(marked), opened)
	}
}

// Input errors stay recognisable through wrapping, and their causes stay
// reachable.
func TestInputErrorsAreRecognisable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, err := Boot(ctx, Options{DataDir: tempDataDir(t), BinDir: "/nonexistent/pg"})
	if !IsInputError(fmt.Errorf("boot: %w", err)) || errors.Is(err, ErrBadDataDir) {
		t.Errorf("--pg-bin pointing at nothing: %v, want an InputError that is not ErrBadDataDir", err)
	}
	_, err = Boot(ctx, Options{DatabaseURL: "mysql://x"})
	if !IsInputError(err) {
		t.Errorf("unparsable --database-url: %v, want an InputError", err)
	}
	var ie *InputError
	if !errors.As(err, &ie) || ie.Input != "--database-url" {
		t.Errorf("unparsable --database-url: Input = %v, want --database-url", ie)
	}
	none := inputErr("PostgreSQL binaries", fmt.Errorf("nothing: %w", ErrNoBinaries))
	if !errors.Is(none, ErrNoBinaries) || !IsInputError(none) {
		t.Errorf("no binaries: %v, want ErrNoBinaries and an InputError", none)
	}
	if IsInputError(errors.New("disk full")) || IsInputError(nil) {
		t.Errorf("IsInputError is true for an error that is not one")
	}
	// A file in the way of a missing parent is the user's path, not the machine.
	_, err = Boot(ctx, Options{DataDir: "/dev/null/data", NoDownload: true})
	if !IsInputError(err) {
		t.Errorf("--data-dir under a file: %v, want an InputError", err)
	}
}
