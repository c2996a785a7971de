package pg

import (
	"fmt"
	"time"
)

// Fact is one line of `outboxlab doctor`: a name and what was found.
type Fact struct {
	Name  string
	Value string
}

// Facts describes the booted server, one fact a line, for doctor and the TUI.
func (s *Server) Facts() []Fact {
	boot := "warm (existing data directory)"
	if s.Cold {
		boot = "cold (initdb)"
	}
	if s.SharedWith != "" {
		return []Fact{
			{"server", s.Binaries.Source},
			{"version", "PostgreSQL " + s.Binaries.Version},
			{"listening", fmt.Sprintf("127.0.0.1:%d (loopback only)", s.Port)},
			{"boot", "none (shared with outboxlab pid " + s.SharedWith + ", which stops it when it quits)"},
			{"schema", fmt.Sprintf("migration %d", SchemaVersion())},
		}
	}
	if s.external != "" {
		return []Fact{
			{"server", s.Binaries.Source},
			{"version", "PostgreSQL " + s.Binaries.Version},
			{"boot", "none (external server)"},
			{"connect time", fmt.Sprintf("%d ms", s.BootTime.Round(time.Millisecond).Milliseconds())},
			{"schema", fmt.Sprintf("migration %d", SchemaVersion())},
		}
	}
	facts := []Fact{
		{"binaries", s.Binaries.Source},
		{"version", "PostgreSQL " + s.Binaries.Version},
		{"data dir", s.DataDir},
		{"runs as", s.Account},
		{"listening", fmt.Sprintf("127.0.0.1:%d (loopback only)", s.Port)},
		{"boot", boot},
		{"boot time", fmt.Sprintf("%d ms", s.BootTime.Round(time.Millisecond).Milliseconds())},
		{"schema", fmt.Sprintf("migration %d", SchemaVersion())},
	}
	if s.Recovered != "" {
		facts = append(facts, Fact{"recovered", s.Recovered})
	}
	return facts
}
