package quit

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"
)

// OnSignal quits p on an interrupt, a SIGTERM or a hangup (the program runs
// without bubbletea's own signal handler, so that a quit goes through the
// screen's cleanup) until ctx ends; the function it returns stops listening.
func OnSignal(ctx context.Context, p *tea.Program) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case <-sigs:
			p.Quit()
		case <-ctx.Done():
		}
	}()
	return func() { signal.Stop(sigs) }
}
