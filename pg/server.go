package pg

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options says how to boot. The zero value boots in the default state
// directory with binaries found by the documented resolution order.
type Options struct {
	// DataDir is outboxlab's data directory (the cluster lives in DataDir/pgdata).
	// Default: DefaultStateDir()/data.
	DataDir string
	// BinDir is --pg-bin; empty means $OUTBOXLAB_PG_BIN, then the search.
	BinDir string
	// CacheDir holds downloaded binaries. Default: DefaultStateDir().
	CacheDir string
	// Fresh removes the cluster and starts from initdb.
	Fresh bool
	// NoDownload skips the embedded-postgres download step.
	NoDownload bool
	// DatabaseURL uses an external server: nothing is booted or stopped.
	DatabaseURL string
	// Progress, when set, is called as each boot step begins.
	Progress func(Progress)
	// Settings are extra server settings written to the cluster's config.
	Settings map[string]string
	// Say, when set, is how the server tells the user what it waits for
	// when no screen is up (Stop waiting for another outboxlab that uses
	// this server to end); nil writes it to standard error.
	Say func(string)
}

// Server is a running PostgreSQL that outboxlab booted (or an external one).
type Server struct {
	Binaries  Binaries
	DataDir   string // outboxlab's data directory
	PGData    string // the cluster directory
	Port      int
	Cold      bool          // initdb ran on this boot
	BootTime  time.Duration // from Boot's call to ready
	Account   string        // who the server runs as
	Recovered string        // what was recovered from a killed run, if anything
	// SharedWith is the pid of the live outboxlab whose server this one
	// uses (its data directory was in use); "" for a server of its own.
	SharedWith string

	external string
	acct     account
	password string
	settings map[string]string

	mu      sync.Mutex
	running bool
	owner   *os.File // the data directory's lock, held while booted
	// sharers is the sharers' lock: held shared while this outboxlab uses
	// another's server, exclusive while the owner stops its own.
	sharers *os.File
	gate    *os.File // the stopping gate, held exclusive once Stop began
	sayTo   func(string)
}

const (
	superuser    = "outboxlab"
	appDatabase  = "outboxlab"
	templateDB   = "outboxlab_template"
	passwordFile = "password"
	logFile      = "postgres.log"
	confFile     = "outboxlab.conf"
)

// Boot resolves binaries, recovers from a killed earlier run, initialises the
// cluster if needed, starts it on a free loopback port and migrates the schema.
// On error nothing is left running.
func Boot(ctx context.Context, opts Options) (*Server, error) {
	start := time.Now()
	progress := func(s BootStep, detail string) {
		if opts.Progress != nil {
			opts.Progress(Progress{Step: s, Detail: detail})
		}
	}
	if opts.DatabaseURL != "" {
		return bootExternal(ctx, opts, start, progress)
	}
	state, err := DefaultStateDir()
	if err != nil && (opts.DataDir == "" || opts.CacheDir == "") {
		return nil, err
	}
	if opts.CacheDir == "" {
		opts.CacheDir = state
	}
	defaultData := opts.DataDir == ""
	if defaultData || opts.CacheDir == state {
		if err := ensureStateDir(state); err != nil {
			return nil, err
		}
	}
	acct, err := currentAccount()
	if err != nil {
		return nil, err
	}

	progress(BootResolving, "")
	explicit, from := explicitBinaries(opts)
	if err := os.MkdirAll(opts.CacheDir, 0o700); err != nil {
		return nil, fmt.Errorf("cache directory %s: %w (pass --data-dir to use another place)", opts.CacheDir, err)
	}
	bins, err := resolveBinaries(ctx, explicit, from, opts.CacheDir, !opts.NoDownload, new([]string))
	if err != nil {
		return nil, err
	}
	if defaultData {
		// One cluster per major version: switching binaries (a system 15, a
		// downloaded 18) boots its own cluster instead of refusing the other's.
		opts.DataDir = filepath.Join(state, fmt.Sprintf("data-%d", bins.Major))
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("data directory %s: %w", opts.DataDir, err)
	}

	s := &Server{
		sayTo:    opts.Say,
		Binaries: bins,
		DataDir:  dataDir,
		PGData:   filepath.Join(dataDir, "pgdata"),
		Account:  acct.String(),
		acct:     acct,
		settings: opts.Settings,
	}
	label := "--data-dir"
	if defaultData {
		label = "data directory"
	}
	if err := s.prepareDataDir(opts.Fresh, label, progress); err != nil {
		if errors.Is(err, ErrDataDirInUse) && !opts.Fresh {
			return attachShared(ctx, opts, dataDir, err, start, progress)
		}
		return nil, err
	}
	if err := s.start(ctx, progress); err != nil {
		s.release()
		return nil, err
	}
	if err := s.dropOrphanSlots(ctx); err != nil {
		_ = s.Stop()
		return nil, err
	}
	progress(BootMigrating, "")
	if err := s.migrateAll(ctx); err != nil {
		_ = s.Stop()
		return nil, err
	}
	s.BootTime = time.Since(start)
	progress(BootReady, fmt.Sprintf("127.0.0.1:%d", s.Port))
	return s, nil
}

func bootExternal(ctx context.Context, opts Options, start time.Time, progress func(BootStep, string)) (*Server, error) {
	u, err := url.Parse(opts.DatabaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, inputErr("--database-url", fmt.Errorf("--database-url %q: want postgres://user:password@host:port/database", redactURL(opts.DatabaseURL)))
	}
	s := &Server{external: opts.DatabaseURL, Account: "external server"}
	s.Port, _ = strconv.Atoi(u.Port())
	s.Binaries.Source = "external server " + redactURL(opts.DatabaseURL)
	progress(BootMigrating, "")
	conn, err := pgx.Connect(ctx, opts.DatabaseURL)
	if err != nil {
		err = fmt.Errorf("connect to --database-url %s: %w", redactURL(opts.DatabaseURL), err)
		if ctx.Err() != nil {
			return nil, err // interrupted: the URL may be fine
		}
		return nil, inputErr("--database-url", err)
	}
	defer conn.Close(ctx)
	var ver string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&ver); err == nil {
		s.Binaries.Version = ver
	}
	if err := Migrate(ctx, conn); err != nil {
		if errors.Is(err, ErrSchemaHistory) {
			// The user's database, not ours to drop: say how to go on.
			return nil, inputErr("--database-url", fmt.Errorf("--database-url %s: %w; outboxlab changed nothing there: give it a database of its own (CREATE DATABASE outboxlab_new) or drop that one's tables and schema_migrations", redactURL(opts.DatabaseURL), err))
		}
		return nil, err
	}
	s.BootTime = time.Since(start)
	progress(BootReady, redactURL(opts.DatabaseURL))
	return s, nil
}

func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// prepareDataDir claims the data directory (see claimDataDir), locks it,
// removes the cluster if fresh, recovers from a killed earlier run and gives
// the account what outboxlab made in it.
func (s *Server) prepareDataDir(fresh bool, label string, progress func(BootStep, string)) error {
	if err := s.claimDataDir(label); err != nil {
		return err
	}
	owner, err := lockOwner(s.DataDir)
	if err != nil {
		return err
	}
	s.owner = owner
	if msg, err := s.recoverOrphan(progress); err != nil {
		s.release()
		return err
	} else {
		s.Recovered = msg
	}
	if fresh {
		if err := os.RemoveAll(s.PGData); err != nil {
			s.release()
			return fmt.Errorf("--fresh: remove %s: %w", s.PGData, err)
		}
	}
	if err := s.ownDataDirFiles(); err != nil {
		s.release()
		return err
	}
	return nil
}

// release gives the data directory up for another outboxlab.
func (s *Server) release() {
	if s.owner != nil {
		_ = s.owner.Close() // closing the file drops its flock
		s.owner = nil
	}
	if s.sharers != nil {
		_ = s.sharers.Close()
		s.sharers = nil
	}
	if s.gate != nil {
		_ = s.gate.Close()
		s.gate = nil
	}
}

// URL is the connection string of the application database.
func (s *Server) URL() string { return s.DatabaseURL(appDatabase) }

// DatabaseURL is the connection string of one database on this server.
func (s *Server) DatabaseURL(db string) string {
	if s.external != "" {
		if db == appDatabase {
			return s.external
		}
		u, _ := url.Parse(s.external)
		u.Path = "/" + db
		return u.String()
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(superuser, s.password),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// External reports whether the server was given by --database-url.
func (s *Server) External() bool { return s.external != "" }

// start initialises the cluster when it is missing and starts the server.
func (s *Server) start(ctx context.Context, progress func(BootStep, string)) error {
	verFile := filepath.Join(s.PGData, "PG_VERSION")
	raw, err := os.ReadFile(verFile)
	switch {
	case errors.Is(err, os.ErrNotExist):
		progress(BootInitdb, s.PGData)
		if err := s.initdb(ctx); err != nil {
			return err
		}
		s.Cold = true
	case err != nil:
		return fmt.Errorf("read %s: %w", verFile, err)
	default:
		if major, _ := strconv.Atoi(strings.TrimSpace(string(raw))); major != s.Binaries.Major {
			return fmt.Errorf("the data directory %s was made by PostgreSQL %s but the binaries are %s: run with --fresh to start over, or pass another --data-dir", s.DataDir, strings.TrimSpace(string(raw)), s.Binaries.Version)
		}
		pw, err := os.ReadFile(filepath.Join(s.DataDir, passwordFile))
		if err != nil {
			return fmt.Errorf("the data directory %s has a cluster but no password file (%v): run with --fresh to start over", s.DataDir, err)
		}
		s.password = strings.TrimSpace(string(pw))
	}
	progress(BootStarting, "")
	if err := s.launch(ctx); err != nil {
		return err
	}
	if s.Cold {
		if err := s.createDatabases(ctx); err != nil {
			_ = s.Stop()
			return err
		}
	}
	return nil
}

func (s *Server) initdb(ctx context.Context) error {
	if err := os.RemoveAll(s.PGData); err != nil {
		return fmt.Errorf("clean %s: %w", s.PGData, err)
	}
	pw, err := randomPassword()
	if err != nil {
		return err
	}
	pwPath := filepath.Join(s.DataDir, passwordFile)
	if err := os.WriteFile(pwPath, []byte(pw+"\n"), 0o600); err != nil {
		return fmt.Errorf("write password file: %w", err)
	}
	if err := s.acct.own(pwPath); err != nil {
		return fmt.Errorf("password file: %w", err)
	}
	cmd := s.acct.command(s.Binaries.Bin("initdb"),
		"-D", s.PGData, "-U", superuser, "--pwfile="+pwPath,
		"--auth=scram-sha-256", "--locale=C", "--encoding=UTF8",
		// The cluster is a simulator's scratch space, rebuilt by --fresh: not
		// waiting for initdb's fsyncs halves a cold boot.
		"--no-sync")
	if out, err := runCmd(ctx, cmd); err != nil {
		_ = os.RemoveAll(s.PGData)
		return fmt.Errorf("initdb as %s: %w\n%s", s.acct.name, err, out)
	}
	s.password = pw
	return s.writeConf()
}

// settingSince names the settings an older supported PostgreSQL does not
// know, with the major version that added them: a server refuses to start on
// a config line it does not recognise, and a machine's own PostgreSQL 15 is
// one outboxlab runs on. Such a setting is only a saving (the tests'
// scram_iterations), so an older server goes without it.
var settingSince = map[string]int{"scram_iterations": 16}

// writeConf keeps outboxlab's settings in a file of its own, included from
// postgresql.conf, so they are reapplied identically on every warm boot.
func (s *Server) writeConf() error {
	var b strings.Builder
	b.WriteString("# Written by outboxlab at initdb.\n")
	b.WriteString("listen_addresses = '127.0.0.1'\n")
	// No Unix socket: its default directory (/var/run/postgresql on Debian
	// builds) may not exist or be writable; TCP on loopback is the one door.
	b.WriteString("unix_socket_directories = ''\n")
	b.WriteString("password_encryption = 'scram-sha-256'\n")
	for k, v := range s.settings {
		if since, ok := settingSince[k]; ok && s.Binaries.Major < since {
			continue
		}
		fmt.Fprintf(&b, "%s = '%s'\n", k, strings.ReplaceAll(v, "'", "''"))
	}
	conf := filepath.Join(s.PGData, confFile)
	if err := os.WriteFile(conf, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", conf, err)
	}
	main := filepath.Join(s.PGData, "postgresql.conf")
	f, err := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", main, err)
	}
	_, err = fmt.Fprintf(f, "\ninclude_if_exists = '%s'\n", confFile)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("append to %s: %w", main, err)
	}
	return s.acct.own(conf)
}

// launch starts the postmaster with pg_ctl on a free loopback port. Another
// process may take the port between our probe and the server's bind; then it
// simply tries another port.
//
// It tries the port of the last start first, when it is free: a psql
// command or a Grafana data source someone copied keeps working across
// restarts.
func (s *Server) launch(ctx context.Context) error {
	var lastErr error
	for try := 0; try < 5; try++ {
		port, ok := 0, false
		if try == 0 {
			port, ok = s.lastPort()
		}
		if !ok {
			var err error
			if port, err = freePort(); err != nil {
				return err
			}
		}
		logPath := filepath.Join(s.DataDir, logFile)
		cmd := s.acct.command(s.Binaries.Bin("pg_ctl"), "start", "-w", "-t", "60",
			"-D", s.PGData, "-l", logPath, "-o", s.startOptions(port))
		out, err := runCmd(ctx, cmd)
		if err == nil {
			s.mu.Lock()
			s.Port, s.running = port, true
			s.mu.Unlock()
			s.keepPort(port)
			return nil
		}
		tail := logTail(logPath, 8)
		lastErr = fmt.Errorf("pg_ctl start as %s: %w\n%s\n%s", s.acct.name, err, out, tail)
		if !strings.Contains(tail, "could not bind") && !strings.Contains(tail, "Address already in use") {
			break
		}
	}
	return lastErr
}

// createDatabases makes the template (migrated, never connected to by the
// application, so it can be cloned) and the application database.
func (s *Server) createDatabases(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.DatabaseURL("postgres"))
	if err != nil {
		return fmt.Errorf("connect to new cluster: %w", err)
	}
	defer conn.Close(ctx)
	for _, db := range []string{templateDB, appDatabase} {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
			return fmt.Errorf("create database %s: %w", db, err)
		}
	}
	return nil
}

// Stop stops the server cleanly (fast shutdown: sessions are ended, committed
// data is flushed). It is a no-op for an external server or when stopped.
func (s *Server) Stop() error { return s.stop("fast") }

// Crash stops the server the way a power cut would (immediate shutdown: no
// checkpoint; committed data survives through WAL, in-flight transactions do not).
func (s *Server) Crash() error { return s.stop("immediate") }

func (s *Server) stop(mode string) error {
	if mode == "fast" && s.external == "" {
		// Another outboxlab may be using this server: it stays up until
		// that one ends, and the server answers meanwhile. A crash
		// (immediate) is the simulator's fault, and Restart follows.
		s.waitForSharers()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.external != "" || !s.running {
		if mode == "fast" {
			s.release()
		}
		return nil
	}
	pid, _ := s.postmaster()
	cmd := s.acct.command(s.Binaries.Bin("pg_ctl"), "stop", "-w", "-t", "60", "-m", mode, "-D", s.PGData)
	if out, err := runCmd(context.Background(), cmd); err != nil {
		// A postmaster killed behind our back cannot be stopped, and need
		// not be: it is as stopped as this call wants it.
		if _, up := s.postmaster(); up {
			return fmt.Errorf("pg_ctl stop -m %s: %w\n%s", mode, err, out)
		}
	}
	// pg_ctl returns once the pid file is gone, a moment before the
	// postmaster's process is: a caller that looks (or starts another
	// server) right after Stop must find none.
	for deadline := time.Now().Add(5 * time.Second); pid > 0 && isPostmaster(pid, s.PGData) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	s.running = false
	if mode == "fast" {
		// A crash (immediate) keeps the directory: Restart follows.
		s.release()
	}
	return nil
}

// Restart starts a stopped, crashed or killed server again on the same port
// with the same password, so connection strings handed out before stay
// valid. A server that still runs is left alone.
func (s *Server) Restart(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.external != "" {
		return errors.New("restart: the server is external (--database-url)")
	}
	if _, up := s.postmaster(); s.running && up {
		return nil
	}
	// Stopped by us or killed behind our back: either way what it left
	// must be cleared before a new postmaster will start.
	s.running = false
	if err := s.clearDeadPostmaster(ctx); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	cmd := s.acct.command(s.Binaries.Bin("pg_ctl"), "start", "-w", "-t", "60",
		"-D", s.PGData, "-l", filepath.Join(s.DataDir, logFile), "-o", s.startOptions(s.Port))
	if out, err := runCmd(ctx, cmd); err != nil {
		return fmt.Errorf("pg_ctl start (restart): %w\n%s\n%s", err, out, logTail(filepath.Join(s.DataDir, logFile), 8))
	}
	s.running = true
	return nil
}

// Running reports whether this Server believes its postmaster is up.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.external != "" || s.running
}

// Pool opens a connection pool to one database on the server.
func (s *Server) Pool(ctx context.Context, db string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(s.DatabaseURL(db))
	if err != nil {
		return nil, fmt.Errorf("pool config: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open pool on %s: %w", db, err)
	}
	return pool, nil
}

// portFile keeps the port of the last start, to be tried first next time.
const portFile = "outboxlab.port"

// lastPort is the port of the last start, if it is free now.
func (s *Server) lastPort() (int, bool) {
	b, err := os.ReadFile(filepath.Join(s.DataDir, portFile))
	if err != nil {
		return 0, false
	}
	port, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || port <= 0 || port > 65535 {
		return 0, false
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return 0, false
	}
	_ = l.Close()
	return port, true
}

// keepPort writes the port started on, for the next start; a failure to
// write costs only a new port next time.
func (s *Server) keepPort(port int) {
	_ = os.WriteFile(filepath.Join(s.DataDir, portFile), []byte(strconv.Itoa(port)+"\n"), 0o600)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomPassword() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func logTail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
