package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/sim"
)

// saveTo says where the session is saved as a scene: the --scenes folder
// (so the picker and `run --scenes DIR` find it at once), else
// ./outboxlab-scenes; and the scene it began as (its title, what it teaches).
type saveTo struct {
	dir  string
	base *scenes.Scene
}

const savedTitle, savedTitleES = " (a saved session)", " (una sesión guardada)"

// sessionOf is the suffix a saved session's name carries.
var sessionOf = regexp.MustCompile(`-session-[0-9]+$`)

// sessionsDir is where sessions are saved without --scenes.
const sessionsDir = "outboxlab-scenes"

// write saves the session as <scene>-session-N.scene, N the first number
// free: a file is never overwritten. The folder is created if missing;
// nothing else in it is touched.
func (s saveTo) write(ctx context.Context, se *sim.Session) (string, error) {
	sc, err := se.Scene(ctx, s.base)
	if err != nil {
		return "", fmt.Errorf("save the session: %w", err)
	}
	// A saved session saved again is still one session of the scene it
	// began as: one "-session-N", one "(a saved session)".
	sc.Title = strings.TrimSuffix(s.base.Title, savedTitle) + savedTitle
	if es, ok := sc.Translations["es"]; ok {
		es.Title = strings.TrimSuffix(es.Title, savedTitleES) + savedTitleES
		sc.Translations["es"] = es
	}
	dir := s.dir
	if dir == "" {
		dir = sessionsDir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("save the session: %w", err)
	}
	text := []byte("# saved by outboxlab: the learner's session, replayed from its seed;\n# the expectations are what the oracle read when it was saved.\n" + sc.Text())
	for n := 1; n < 10000; n++ {
		path := filepath.Join(dir, fmt.Sprintf("%s-session-%d%s", sessionOf.ReplaceAllString(s.base.Name, ""), n, scenes.Ext))
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("save the session: %w", err)
		}
		if _, err := f.Write(text); err != nil {
			f.Close()
			return "", fmt.Errorf("save the session: %w", err)
		}
		return path, f.Close()
	}
	return "", fmt.Errorf("save the session: %s holds 9999 saved sessions of %s already", dir, s.base.Name)
}
