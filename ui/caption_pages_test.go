package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/screen"
)

// play opens a scene with its title and what it teaches, a page at a time:
// every page of every built-in scene's opening, in both languages, fits
// the caption's three lines at 80 columns (nothing cut with "…"), is up
// at most 15 s at speed 1, and the pages together say
// the whole text. crash-after-publish's opening was cut at "…ignores…" and
// up 26.5 s.
func TestSceneOpeningIsCaptionedPageByPage(t *testing.T) {
	all, err := scenes.Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		for _, lang := range []string{"en", "es"} {
			text := sc.TitleIn(lang) + ": " + screen.OneLine(sc.TeachesIn(lang))
			pages := captionPages(text, captionPage)
			if got := strings.Join(pages, " "); got != text {
				t.Errorf("%s (%s): the pages say %q, want %q", sc.Name, lang, got, text)
			}
			for i, page := range pages {
				p := &playPage{play: playState{caption: page}}
				if n := len(p.captionLines(80)); n > 3 {
					t.Errorf("%s (%s): page %d takes %d lines at 80 columns, the caption shows 3: %q", sc.Name, lang, i+1, n, page)
				}
				// play's readTime at speed 1.
				if up := time.Second + time.Duration(len(strings.Fields(page)))*300*time.Millisecond; up > 15*time.Second {
					t.Errorf("%s (%s): page %d is up %v at speed 1", sc.Name, lang, i+1, up)
				}
			}
			if sc.Name == "crash-after-publish" && lang == "en" {
				t.Logf("crash-after-publish's opening, %d pages: %q", len(pages), pages)
				if len(pages) < 2 {
					t.Errorf("crash-after-publish's opening is one caption of %d bytes", len(text))
				}
			}
		}
	}
}
