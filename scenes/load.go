package scenes

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed builtin/*.scene
var builtinFS embed.FS

// Ext is the scene file extension.
const Ext = ".scene"

// Builtin parses the embedded scenes. They are tested, so an error here is a
// build defect.
func Builtin() ([]*Scene, error) {
	return loadFS(builtinFS, "builtin", "scenes/builtin")
}

// Load returns the built-in scenes plus those in dir (if dir is not empty); a
// scene in dir with a built-in's name replaces it.
func Load(dir string) ([]*Scene, error) {
	all, err := Builtin()
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return all, nil
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--scenes %s: not a directory", dir)
	}
	extra, err := loadFS(os.DirFS(dir), ".", dir)
	if err != nil {
		return nil, err
	}
	byName := map[string]int{}
	for i, s := range all {
		byName[s.Name] = i
	}
	for _, s := range extra {
		if i, ok := byName[s.Name]; ok {
			all[i] = s
		} else {
			all = append(all, s)
		}
	}
	return all, nil
}

// Find returns the scene of that name.
func Find(all []*Scene, name string) (*Scene, error) {
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
	}
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.Name
	}
	return nil, fmt.Errorf("unknown scene %q (known: %s)", name, strings.Join(names, ", "))
}

func loadFS(fsys fs.FS, root, shown string) ([]*Scene, error) {
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		return nil, fmt.Errorf("read scenes in %s: %w", shown, err)
	}
	var out []*Scene
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), Ext) {
			continue
		}
		f, err := fsys.Open(filepath.ToSlash(filepath.Join(root, e.Name())))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sc, err := Parse(strings.TrimSuffix(e.Name(), Ext), filepath.Join(shown, e.Name()), f)
		f.Close()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, sc)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.SliceStable(out, func(i, j int) bool { return order(out[i].Name) < order(out[j].Name) })
	return out, nil
}

// order puts the built-in scenes in teaching order; others follow by name.
func order(name string) string {
	for i, n := range teachingOrder {
		if n == name {
			return fmt.Sprintf("%03d", i)
		}
	}
	return "999" + name
}

var teachingOrder = []string{
	"dual-write-crash", "dual-write-phantom", "rollback", "crash-after-commit", "two-relays",
	"crash-after-publish", "crash-before-ack", "concurrent-duplicate", "broker-down",
	"poison-message", "lease-expired", "out-of-order", "two-consumers", "idempotency-key", "ambiguous-commit", "retention",
	"trace-is-not-an-id", "commit-order", "cdc-relay",
}
