package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/pg"
	"github.com/spf13/pflag"
)

// pgFlags are the database flags every command that boots PostgreSQL shares.
type pgFlags struct {
	binDir, dataDir, databaseURL string
	fresh                        bool
}

func (p *pgFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&p.binDir, "pg-bin", "", "PostgreSQL installation to use (a directory with bin/initdb, bin/pg_ctl, bin/postgres); also $"+pg.EnvBinDir)
	fs.StringVar(&p.dataDir, "data-dir", "", "data directory (default: outboxlab/data-<major> in the user cache directory; /var/cache/outboxlab as root)")
	fs.StringVar(&p.databaseURL, "database-url", "", "use this external PostgreSQL instead of booting one (postgres://user:pass@host:port/db)")
	fs.BoolVar(&p.fresh, "fresh", false, "start from initdb: delete the cluster in the data directory first; serve --broker and live also empty the deployment's database (live_outbox, on a --database-url server too) and its stream")
}

func (p *pgFlags) options() pg.Options {
	return pg.Options{BinDir: p.binDir, DataDir: p.dataDir, DatabaseURL: p.databaseURL, Fresh: p.fresh}
}

// sceneFlags are the flags of every command that runs a scene.
type sceneFlags struct {
	dir, mode string
	seed      uint64
}

func (f *sceneFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.dir, "scenes", "", "also load the scene files (*.scene) in this directory")
	fs.StringVar(&f.mode, "mode", "", "pipelines to run: outbox, naive or compare (default: the scene's)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed for jitter, ids and the scheduler (default: the scene's)")
}

// langFlag is --lang, or the language LC_ALL or LANG name.
func langFlag(v string) (string, error) {
	if v == "" {
		return lessons.Lang(os.Getenv("LANG"), os.Getenv("LC_ALL")), nil
	}
	l, err := lessons.ParseLang(v)
	if err != nil {
		return "", badinput.Errorf("--lang: %w", err)
	}
	return l, nil
}

// printFacts prints the server's facts, one a line.
func printFacts(out io.Writer, facts []pg.Fact) {
	for _, f := range facts {
		fmt.Fprintf(out, "%-10s %s\n", f.Name+":", f.Value)
	}
}
