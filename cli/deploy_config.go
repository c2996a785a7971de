package cli

import (
	"github.com/outboxlab/outboxlab/badinput"
	"github.com/outboxlab/outboxlab/deploy/deployed"
	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/scenes"
)

// deployConfig is the deployment serve --broker and live start: the actors
// of scene settings set (never its script), on the broker c chose.
func deployConfig(set scenes.Settings, c deployed.Choice, who string, onError func(error)) (deployed.Config, error) {
	strategy, err := engine.ParseStrategy(set.Consumer)
	if err != nil {
		return deployed.Config{}, badinput.Wrap(err)
	}
	return deployed.Config{Choice: c, Relays: set.Relays, Workers: set.Workers, Strategy: strategy,
		Relay:   engine.RelayConfig{Lease: set.Lease, BatchSize: set.Batch, MaxAttempts: set.MaxAttempts},
		AckWait: set.AckTimeout, Who: who, OnError: onError}, nil
}
