package pg

// BootStep is one step of booting the embedded server, reported as it begins so a
// caller (doctor, the TUI's boot screen) can show progress while it waits.
type BootStep int

// The boot steps, in the order they happen. Recovering and Initdb are skipped
// when there is nothing to recover or the data directory is warm.
const (
	BootResolving BootStep = iota
	BootRecovering
	BootInitdb
	BootStarting
	BootMigrating
	BootReady
)

func (s BootStep) String() string {
	switch s {
	case BootResolving:
		return "resolving binaries"
	case BootRecovering:
		return "recovering"
	case BootInitdb:
		return "initdb"
	case BootStarting:
		return "starting"
	case BootMigrating:
		return "migrating"
	case BootReady:
		return "ready"
	}
	return "unknown"
}

// Progress is one boot event: the step that begins and a detail line.
type Progress struct {
	Step   BootStep
	Detail string
}
