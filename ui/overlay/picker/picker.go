package picker

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/lessons"
	"github.com/outboxlab/outboxlab/scenes"
	"github.com/outboxlab/outboxlab/screen"
)

// sceneItem is one scene in the picker, in the learner's language.
type sceneItem struct {
	sc   *scenes.Scene
	lang string
}

func (i sceneItem) Title() string       { return i.sc.Name + " — " + i.sc.TitleIn(i.lang) }
func (i sceneItem) Description() string { return firstSentence(i.sc.TeachesIn(i.lang)) }
func (i sceneItem) FilterValue() string {
	return i.sc.Name + " " + i.sc.TitleIn(i.lang) + " " + i.sc.TeachesIn(i.lang)
}

// firstSentence is what a scene teaches, as its one-line description.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 && i < 12 {
		// "S13. The relay…": the item id is not the sentence.
		if j := strings.Index(s[i+2:], ". "); j >= 0 {
			return s[:i+2+j+1]
		}
	} else if i >= 0 {
		return s[:i+1]
	}
	return s
}

// lessonItem is one lesson of the course in the picker: the course is the
// way in, so its lessons come first.
type lessonItem struct {
	l   *lessons.Lesson
	pos string // "3/20"
	w   *catalog.Printer
}

func (i lessonItem) Title() string {
	return i.w.T("lesson %s", i.pos) + " " + i.l.Name + " — " + i.l.Title
}
func (i lessonItem) Description() string { return i.l.Summary }
func (i lessonItem) FilterValue() string {
	return i.l.Name + " " + i.l.Title + " " + i.l.Summary
}

// ChooseLessonMsg asks the root to open the lesson Name.
type ChooseLessonMsg struct{ Name string }

// ChooseSceneMsg asks the root to load the scene Name.
type ChooseSceneMsg struct{ Name string }

// CloseMsg asks the root to close the picker.
type CloseMsg struct{}

// keyMap is the picker's own keys, beside the list's.
type keyMap struct {
	Choose, Back key.Binding
}

// Pane lists the course's lessons, then every scene (bubbles list,
// with filtering), and shows what the selected one teaches.
type Pane struct {
	// opened says the picker was opened before: it then opens on the
	// scene on screen, the first time on lesson 1.
	opened bool
	st     *screen.Styles
	keys   keyMap
	w, h   int
	list   list.Model
}

// New lists the course's lessons, then the scenes all, drawn for a dark
// background or a light one.
func New(st *screen.Styles, all []*scenes.Scene, course []*lessons.Lesson, hasDark bool) Pane {
	var items []list.Item
	for i, l := range course {
		items = append(items, lessonItem{l, fmt.Sprintf("%d/%d", i+1, len(course)), st.Words})
	}
	for _, sc := range all {
		items = append(items, sceneItem{sc, st.Words.Lang()})
	}
	d := list.NewDefaultDelegate()
	d.Styles = list.NewDefaultItemStyles(hasDark)
	// One line an item: the list would cut a description to its width
	// ("…"); the selected one's is read whole in the detail under it.
	d.ShowDescription = false
	l := list.New(items, d, 80, 20)
	l.Title = st.Words.T("Lessons and scenes") + fmt.Sprintf(" · %d", len(items))
	// The list's status bar speaks English ("13 filtered"): the count is
	// in the title instead.
	l.SetShowStatusBar(false)
	l.FilterInput.Prompt = st.Words.T("Filter: ")
	l.Styles = list.DefaultStyles(hasDark)
	l.SetShowHelp(false)
	l.SetStatusBarItemName(st.Words.T("lesson or scene"), st.Words.T("lessons and scenes"))
	l.DisableQuitKeybindings()
	return Pane{
		st: st,
		keys: keyMap{
			Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", st.Words.T("open"))),
			Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", st.Words.T("back"))),
		},
		list: l,
	}
}

// Open shows the list on the scene on screen, already filtering: the `/`
// that opened it is the list's own filter key, so typing filters at once
// instead of moving the cursor (j, k) or quitting (q).
func (p *Pane) Open(scene string) tea.Cmd {
	p.list.ResetFilter()
	var cmd tea.Cmd
	p.list, cmd = p.list.Update(tea.KeyPressMsg{Code: '/', Text: "/"})
	// The filter key puts the cursor on the first item: select after it.
	// The first time, that is the course's first lesson, the way in.
	if p.opened {
		p.SelectScene(scene)
	}
	p.opened = true
	return cmd
}

// SelectScene moves the cursor to the named scene.
func (p *Pane) SelectScene(name string) {
	for i, it := range p.list.Items() {
		if it, ok := it.(sceneItem); ok && it.sc.Name == name {
			p.list.Select(i)
		}
	}
}

// Select moves the cursor to item i: the course's lessons come first, then
// the scenes.
func (p *Pane) Select(i int) { p.list.Select(i) }

// Item is item i: the lesson's or the scene's name, and for a lesson its
// place in the course ("3/20").
func (p Pane) Item(i int) (name, pos string, lesson bool) {
	switch it := p.list.Items()[i].(type) {
	case lessonItem:
		return it.l.Name, it.pos, true
	case sceneItem:
		return it.sc.Name, "", false
	}
	return "", "", false
}

// SetSize is the body's room: the list over the selected item's detail.
func (p *Pane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.list.SetSize(w, max(4, h-p.detailHeight()))
}

func (p Pane) detailHeight() int { return min(8, max(3, p.h/3)) }

// ShortHelp is the picker's keys and the list's.
func (p Pane) ShortHelp() []key.Binding {
	return append([]key.Binding{p.keys.Choose, p.keys.Back}, p.list.ShortHelp()...)
}

// FullHelp is every key of the picker and the list.
func (p Pane) FullHelp() [][]key.Binding {
	return append([][]key.Binding{{p.keys.Choose, p.keys.Back}}, p.list.FullHelp()...)
}

// Update filters and moves through the list, opens the selected item
// (ChooseLessonMsg, ChooseSceneMsg) or closes (CloseMsg).
func (p Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if key.Matches(k, p.keys.Back) {
			// One esc leaves: the picker opens already filtering, so the
			// list's own esc (cancel the filter) would need a second.
			return p, func() tea.Msg { return CloseMsg{} }
		}
		// enter opens the selected item; while a filter is typed it ends
		// the typing (the list's own enter, which puts the cursor on the
		// best match), unless nothing was typed: then it opens at once.
		if key.Matches(k, p.keys.Choose) && (!p.list.SettingFilter() || p.list.FilterValue() == "") {
			switch it := p.list.SelectedItem().(type) {
			case sceneItem:
				name := it.sc.Name
				return p, func() tea.Msg { return ChooseSceneMsg{name} }
			case lessonItem:
				name := it.l.Name
				return p, func() tea.Msg { return ChooseLessonMsg{name} }
			}
		}
	}
	before := p.list.FilterValue()
	var cmd tea.Cmd
	p.list, cmd = p.list.Update(msg)
	if p.list.SettingFilter() && p.list.FilterValue() != before {
		// Typing: the best match is the one enter opens, not whatever
		// stands where the cursor was (the item on screen when / opened).
		p.list.Select(0)
	}
	return p, cmd
}

// View draws the list and, under it, what the selected item teaches.
func (p Pane) View() string {
	lh := max(4, p.h-p.detailHeight())
	top := screen.Block(p.list.View(), p.w, lh)
	var detail []string
	detail = append(detail, p.st.Pane.Gutter.Render(strings.Repeat("─", p.w)))
	if it, ok := p.list.SelectedItem().(lessonItem); ok {
		detail = append(detail, p.heading(it.l.Title, "(outboxlab --lesson "+it.l.Name+")")...)
		for _, l := range strings.Split(lipgloss.Wrap(it.l.Summary, max(10, p.w-4), " "), "\n") {
			detail = append(detail, "  "+l)
		}
	}
	if it, ok := p.list.SelectedItem().(sceneItem); ok {
		sc := it.sc
		detail = append(detail, p.heading(sc.TitleIn(it.lang), "("+sc.Name+", "+p.st.Words.T("mode")+" "+p.st.Words.Word(string(sc.Settings.Mode))+")")...)
		for _, l := range strings.Split(lipgloss.Wrap(strings.Join(strings.Fields(sc.TeachesIn(it.lang)), " "), max(10, p.w-4), " "), "\n") {
			detail = append(detail, "  "+l)
		}
	}
	return top + "\n" + screen.Block(strings.Join(detail, "\n"), p.w, p.h-lh)
}

// heading is the detail's title and the name to open it by: on one line
// when both fit, else the name on a line of its own.
func (p Pane) heading(title, name string) []string {
	if ansi.StringWidth(title)+2+ansi.StringWidth(name) <= p.w-4 {
		return []string{"  " + p.st.Figures.Heading.Render(title) + p.st.App.Muted.Render("  "+name)}
	}
	var out []string
	for _, l := range screen.WrapWhole(title, p.w-4, 0) {
		out = append(out, "  "+p.st.Figures.Heading.Render(l))
	}
	return append(out, "  "+p.st.App.Muted.Render(name))
}
