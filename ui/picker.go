package ui

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

// chooseLessonMsg asks the root to open a lesson.
type chooseLessonMsg struct{ name string }

type pickerKeys struct {
	Choose, Back key.Binding
}

// chooseSceneMsg asks the root to load a scene.
type chooseSceneMsg struct{ name string }

// closePickerMsg asks the root to close the picker.
type closePickerMsg struct{}

// pickerPane lists the course's lessons, then every scene (bubbles list,
// with filtering), and shows what the selected one teaches.
type pickerPane struct {
	// opened says the picker was opened before: it then opens on the
	// scene on screen, the first time on lesson 1.
	opened bool
	st     *Styles
	keys   pickerKeys
	w, h   int
	list   list.Model
}

func newPickerPane(st *Styles, all []*scenes.Scene, course []*lessons.Lesson, hasDark bool) pickerPane {
	var items []list.Item
	for i, l := range course {
		items = append(items, lessonItem{l, fmt.Sprintf("%d/%d", i+1, len(course)), st.Words})
	}
	for _, sc := range all {
		items = append(items, sceneItem{sc, langOf(st.Words)})
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
	return pickerPane{
		st: st,
		keys: pickerKeys{
			Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", st.Words.T("open"))),
			Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", st.Words.T("back"))),
		},
		list: l,
	}
}

// open shows the list on the scene on screen, already filtering: the `/`
// that opened it is the list's own filter key, so typing filters at once
// instead of moving the cursor (j, k) or quitting (q).
func (p *pickerPane) open(scene string) tea.Cmd {
	p.list.ResetFilter()
	var cmd tea.Cmd
	p.list, cmd = p.list.Update(tea.KeyPressMsg{Code: '/', Text: "/"})
	// The filter key puts the cursor on the first item: select after it.
	// The first time, that is the course's first lesson, the way in.
	if p.opened {
		p.selectScene(scene)
	}
	p.opened = true
	return cmd
}

// selectScene moves the cursor to the named scene.
func (p *pickerPane) selectScene(name string) {
	for i, it := range p.list.Items() {
		if it, ok := it.(sceneItem); ok && it.sc.Name == name {
			p.list.Select(i)
		}
	}
}

func (p *pickerPane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.list.SetSize(w, max(4, h-p.detailHeight()))
}

func (p pickerPane) detailHeight() int { return min(8, max(3, p.h/3)) }

func (p pickerPane) ShortHelp() []key.Binding {
	return append([]key.Binding{p.keys.Choose, p.keys.Back}, p.list.ShortHelp()...)
}

func (p pickerPane) FullHelp() [][]key.Binding {
	return append([][]key.Binding{{p.keys.Choose, p.keys.Back}}, p.list.FullHelp()...)
}

func (p pickerPane) Update(msg tea.Msg) (pickerPane, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if key.Matches(k, p.keys.Back) {
			// One esc leaves: the picker opens already filtering, so the
			// list's own esc (cancel the filter) would need a second.
			return p, func() tea.Msg { return closePickerMsg{} }
		}
		// enter opens the selected item; while a filter is typed it ends
		// the typing (the list's own enter, which puts the cursor on the
		// best match), unless nothing was typed: then it opens at once.
		if key.Matches(k, p.keys.Choose) && (!p.list.SettingFilter() || p.list.FilterValue() == "") {
			switch it := p.list.SelectedItem().(type) {
			case sceneItem:
				name := it.sc.Name
				return p, func() tea.Msg { return chooseSceneMsg{name} }
			case lessonItem:
				name := it.l.Name
				return p, func() tea.Msg { return chooseLessonMsg{name} }
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

func (p pickerPane) View() string {
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
func (p pickerPane) heading(title, name string) []string {
	if ansi.StringWidth(title)+2+ansi.StringWidth(name) <= p.w-4 {
		return []string{"  " + p.st.Figures.Heading.Render(title) + p.st.App.Muted.Render("  "+name)}
	}
	var out []string
	for _, l := range screen.WrapWhole(title, p.w-4, 0) {
		out = append(out, "  "+p.st.Figures.Heading.Render(l))
	}
	return append(out, "  "+p.st.App.Muted.Render(name))
}
