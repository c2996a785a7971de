package cli

import (
	"io"
	"log/slog"

	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/deploy/launch"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/scenes"
)

// deployConfig is the deployment serve --broker and live start: the actors
// of scene settings set (never its script), on the broker c chose.
func deployConfig(set scenes.Settings, c launch.Choice, who string, onError func(error)) (launch.Config, error) {
	strategy, err := engine.ParseStrategy(set.Consumer)
	if err != nil {
		return launch.Config{}, badinput.Wrap(err)
	}
	return launch.Config{Choice: c, Relays: set.Relays, Workers: set.Workers, Strategy: strategy,
		Relay:   engine.RelayConfig{Lease: set.Lease, BatchSize: set.Batch, MaxAttempts: set.MaxAttempts},
		AckWait: set.AckTimeout, Who: who, OnError: onError}, nil
}

// newLogger is the deployment's log on w: log/slog's text lines, or one
// JSON object a line (--log-format json).
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, badinput.Errorf("--log-format %q: want text or json", format)
}
