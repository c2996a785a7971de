package pg

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
)

// runCmd runs a PostgreSQL program and returns its combined output. Cancelling
// ctx kills the program (and only it: it has its own process group; see
// killGroup).
func runCmd(ctx context.Context, cmd *exec.Cmd) (string, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return strings.TrimSpace(out.String()), err
	case <-ctx.Done():
		killGroup(cmd.Process)
		<-done
		return strings.TrimSpace(out.String()), ctx.Err()
	}
}
