package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/pg"
	"github.com/outboxlab/outboxlab/pg/pgtest"
)

// TestNewModelDrawsBeforeItsFirstSize: a Model from NewModel (the
// workshop's learner, whose SSH session's size comes as a message after the
// first frame) is drawn before any WindowSizeMsg, before and after its
// simulation is built, in a lesson and on a scene, and draws a screen
// instead of panicking.
func TestNewModelDrawsBeforeItsFirstSize(t *testing.T) {
	srv := pgtest.Server(t)
	for i, opts := range []Options{{Lesson: "dual-write"}, {}} {
		opts.DBPrefix = fmt.Sprintf("uiview_%d_%d", time.Now().UnixNano()%1e6, i)
		m, err := NewModel(t.Context(), srv, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = m.Close()
			_ = pg.OwnNamespace(opts.DBPrefix).DropAll(context.Background(), srv)
		})
		if s := m.View().Content; s == "" {
			t.Errorf("%+v: an empty first frame before the simulation", opts)
		}
		msg := m.first()
		next, _ := m.Update(msg)
		m = next.(Model)
		if s := m.View().Content; !strings.Contains(s, "outbox") {
			t.Errorf("%+v: the frame before any size, the simulation built:\n%s", opts, s)
		}
	}
}
