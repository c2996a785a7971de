package ui

import (
	"github.com/outboxlab/outboxlab/pg"
)

type errString string

func (e errString) Error() string { return string(e) }

func pgProgress(step int, detail string) pg.Progress {
	return pg.Progress{Step: pg.BootStep(step), Detail: detail}
}
