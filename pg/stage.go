package pg

// Stage is one step of booting the embedded server, reported as it begins so a
// caller (doctor, the TUI's boot screen) can show progress while it waits.
type Stage int

// The boot stages, in the order they happen. Recovering and Initdb are skipped
// when there is nothing to recover or the data directory is warm.
const (
	StageResolving Stage = iota
	StageRecovering
	StageInitdb
	StageStarting
	StageMigrating
	StageReady
)

func (s Stage) String() string {
	switch s {
	case StageResolving:
		return "resolving binaries"
	case StageRecovering:
		return "recovering"
	case StageInitdb:
		return "initdb"
	case StageStarting:
		return "starting"
	case StageMigrating:
		return "migrating"
	case StageReady:
		return "ready"
	}
	return "unknown"
}

// Progress is one boot event: the stage that begins and a detail line.
type Progress struct {
	Stage  Stage
	Detail string
}
