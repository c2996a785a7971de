package screen

import (
	"image/color"
	"os"

	"charm.land/bubbles/v2/help"
	glamouransi "charm.land/glamour/v2/ansi"
	glamourstyles "charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
	"github.com/outboxlab/outboxlab/catalog"
)

// Styles is every style the TUI draws with, grouped by pane. The root builds
// one from Default and hands a pointer to each pane; nothing else keeps a
// style of its own.
type Styles struct {
	NoColor bool
	// Words prints the screen's own words in the learner's language (the
	// message catalog): every pane gets it with its styles, so a pane that
	// draws a label also says it in the right language.
	Words *catalog.Printer

	App struct {
		Logo, Status, StatusKey, StatusValue, Error, Muted, Notice lipgloss.Style
	}
	Pane struct {
		Title, TitleFocused, Gutter, Empty lipgloss.Style
	}
	Boot struct {
		Title, Done, Current, Error, Hint lipgloss.Style
	}
	Pipeline struct {
		Kind, Name, Idle, Paused, Stalled, Blocked, Crashed, Down, Arrow, Count, Armed lipgloss.Style
	}
	Table struct {
		Header, Row, Changed, Scroll lipgloss.Style
	}
	Timeline struct {
		Time, Actor, Checkpoint, Statement, Explain, Selected, SQL, Crash, Fault, Answer, Fork lipgloss.Style
	}
	Figures struct {
		Heading, Label, Value, Bad, Good, Example lipgloss.Style
	}
	Dialog struct {
		Box, Title, Item, Selected, Hint lipgloss.Style
	}
	Lesson struct {
		Pass, Fail, Pending, Detail, Status, Caption, Right, Wrong, Choice, Selected, Because lipgloss.Style
	}
	// Live is the live screen's (outboxlab live): its header and the
	// actors' states; its figures use Figures.
	Live struct {
		Title, Broker, Why, Running, Stalled, Crashed, Armed, Index lipgloss.Style
	}
	// Room is the workshop instructor's screen (outboxlab workshop): its
	// headings, the lines that matter less, a raised hand or a stuck
	// learner (Warn), and the row selected. It keeps the terminal's own
	// colours: the one it sets is Warn's bright red, dropped under
	// NO_COLOR.
	Room struct {
		Heading, Faint, Warn, Chosen lipgloss.Style
	}
	// Markdown is the lesson pane's glamour style, matched to the
	// background (ASCII only under NO_COLOR), without the document margin:
	// the pane draws its own.
	Markdown glamouransi.StyleConfig
	Spinner  lipgloss.Style
	Help     help.Styles
}

// DefaultStyles returns the styles for a dark or a light background. With
// NO_COLOR set (https://no-color.org) every colour is dropped and emphasis is
// carried by bold, underline and reverse video alone.
func Default(hasDark bool) Styles {
	noColor := os.Getenv("NO_COLOR") != ""
	ld := lipgloss.LightDark(hasDark)
	c := func(light, dark string) color.Color {
		if noColor {
			return lipgloss.NoColor{}
		}
		return ld(lipgloss.Color(light), lipgloss.Color(dark))
	}
	var (
		text    = c("#1f1f1f", "#e4e4e4")
		muted   = c("#6c6c6c", "#8a8a8a")
		faint   = c("#a8a8a8", "#4e4e4e")
		accent  = c("#5a3fd6", "#a48cff")
		blue    = c("#005fd7", "#5fafff")
		green   = c("#007a3d", "#5fd787")
		yellow  = c("#9a6700", "#ffd75f")
		orange  = c("#b35900", "#ffaf5f")
		red     = c("#c40000", "#ff5f5f")
		changed = c("#fff2b3", "#4a3f00")
		selBg   = c("#dadaff", "#303060")
	)
	n := lipgloss.NewStyle
	var s Styles
	s.NoColor = noColor

	s.App.Logo = n().Bold(true).Foreground(accent)
	s.App.Status = n().Foreground(muted)
	s.App.StatusKey = n().Foreground(muted)
	s.App.StatusValue = n().Foreground(text).Bold(true)
	s.App.Error = n().Foreground(red).Bold(true)
	s.App.Muted = n().Foreground(muted)
	s.App.Notice = n().Foreground(yellow)

	s.Pane.Title = n().Foreground(muted).Bold(true)
	s.Pane.TitleFocused = n().Foreground(accent).Bold(true).Underline(noColor)
	s.Pane.Gutter = n().Foreground(faint)
	s.Pane.Empty = n().Foreground(muted).Italic(true)

	s.Boot.Title = n().Bold(true).Foreground(accent)
	s.Boot.Done = n().Foreground(green)
	s.Boot.Current = n().Foreground(text).Bold(true)
	s.Boot.Error = n().Foreground(red)
	s.Boot.Hint = n().Foreground(muted)

	s.Pipeline.Kind = n().Bold(true).Foreground(accent)
	s.Pipeline.Name = n().Bold(true).Foreground(text)
	s.Pipeline.Idle = n().Foreground(muted)
	s.Pipeline.Paused = n().Foreground(blue)
	s.Pipeline.Stalled = n().Foreground(orange).Bold(true)
	s.Pipeline.Blocked = n().Foreground(yellow)
	s.Pipeline.Crashed = n().Foreground(red).Bold(true)
	s.Pipeline.Down = n().Foreground(red).Bold(true)
	s.Pipeline.Arrow = n().Foreground(faint)
	s.Pipeline.Count = n().Foreground(yellow)
	s.Pipeline.Armed = n().Foreground(orange)

	s.Table.Header = n().Bold(true).Foreground(muted).Underline(true)
	s.Table.Row = n().Foreground(text)
	s.Table.Changed = n().Background(changed).Foreground(text).Bold(true)
	if noColor {
		s.Table.Changed = n().Reverse(true)
	}
	s.Table.Scroll = n().Foreground(muted)

	s.Timeline.Time = n().Foreground(muted)
	s.Timeline.Actor = n().Foreground(accent)
	s.Timeline.Checkpoint = n().Foreground(blue)
	s.Timeline.Statement = n().Foreground(green)
	s.Timeline.Explain = n().Foreground(text)
	s.Timeline.Selected = n().Background(selBg).Bold(true)
	if noColor {
		s.Timeline.Selected = n().Reverse(true)
	}
	s.Timeline.SQL = n().Foreground(green)
	s.Timeline.Crash = n().Foreground(red).Bold(true)
	s.Timeline.Fault = n().Foreground(orange)
	s.Timeline.Fork = n().Foreground(orange).Bold(true)
	s.Timeline.Answer = n().Foreground(muted)

	s.Figures.Heading = n().Bold(true).Foreground(accent)
	s.Figures.Label = n().Foreground(muted)
	s.Figures.Value = n().Foreground(text).Bold(true)
	s.Figures.Bad = n().Foreground(red).Bold(true)
	if noColor {
		s.Figures.Bad = n().Bold(true).Reverse(true)
	}
	s.Figures.Good = n().Foreground(green)
	s.Figures.Example = n().Foreground(red)

	s.Dialog.Box = n().Border(lipgloss.RoundedBorder()).BorderForeground(accent).Padding(0, 1)
	s.Dialog.Title = n().Bold(true).Foreground(accent)
	s.Dialog.Item = n().Foreground(text)
	s.Dialog.Selected = n().Foreground(accent).Bold(true).Reverse(noColor)
	s.Dialog.Hint = n().Foreground(muted)

	s.Lesson.Pass = n().Foreground(green).Bold(true)
	s.Lesson.Fail = n().Foreground(red).Bold(true)
	s.Lesson.Pending = n().Foreground(muted)
	s.Lesson.Detail = n().Foreground(muted)
	s.Lesson.Status = n().Foreground(accent).Bold(true)
	s.Lesson.Caption = n().Foreground(text).Bold(true)
	if !noColor {
		s.Lesson.Caption = s.Lesson.Caption.Background(selBg)
	} else {
		s.Lesson.Caption = s.Lesson.Caption.Reverse(true)
	}
	s.Lesson.Right = n().Foreground(green).Bold(true)
	s.Lesson.Wrong = n().Foreground(red).Bold(true)
	s.Lesson.Choice = n().Foreground(text)
	s.Lesson.Selected = n().Foreground(accent).Bold(true).Reverse(noColor)
	s.Lesson.Because = n().Foreground(muted).Italic(true)
	s.Markdown = markdownStyle(hasDark, noColor)

	s.Live.Title = n().Bold(true).Foreground(accent)
	s.Live.Broker = n().Bold(true).Foreground(text)
	s.Live.Why = n().Foreground(muted)
	s.Live.Running = n().Foreground(green)
	s.Live.Stalled = n().Foreground(orange).Bold(true)
	s.Live.Crashed = n().Foreground(red).Bold(true)
	s.Live.Armed = n().Foreground(orange)
	s.Live.Index = n().Foreground(muted)

	s.Room.Heading = n().Bold(true)
	s.Room.Faint = n().Faint(true)
	s.Room.Warn = n().Bold(true)
	if !noColor {
		s.Room.Warn = s.Room.Warn.Foreground(lipgloss.Color("9"))
	}
	s.Room.Chosen = n().Reverse(true)

	s.Spinner = n().Foreground(accent)

	s.Help = help.DefaultStyles(hasDark)
	if noColor {
		s.Help = help.Styles{}
		s.Help.ShortKey = n().Bold(true)
		s.Help.FullKey = n().Bold(true)
	}
	return s
}

// markdownStyle is glamour's dark or light style (its ASCII style without
// colour) with no margin and no blank lines around the document, so the
// rendered text fits a pane's width exactly.
func markdownStyle(hasDark, noColor bool) glamouransi.StyleConfig {
	var sc glamouransi.StyleConfig
	switch {
	case noColor:
		sc = glamourstyles.ASCIIStyleConfig
	case hasDark:
		sc = glamourstyles.DarkStyleConfig
	default:
		sc = glamourstyles.LightStyleConfig
	}
	zero := uint(0)
	sc.Document.Margin = &zero
	sc.Document.BlockPrefix, sc.Document.BlockSuffix = "", ""
	return sc
}
