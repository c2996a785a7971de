package deployui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/deploy"
	"github.com/outboxlab/outboxlab/engine/fault"
	"github.com/outboxlab/outboxlab/screen"
	"github.com/outboxlab/outboxlab/screen/quit"
)

// Options say what the live screen shows: a deployment running for
// real (deploy.Launch), started by the caller, who also stops it.
type Options struct {
	Deployment Deployment
	// BrokerURL is the NATS URL the broker runs at; "" for JetStream
	// embedded in this process.
	BrokerURL string
	// HTTP is where its HTTP API listens ("" for none).
	HTTP string
	// PsqlURL is the URL of the database that holds the payments, for the
	// psql command the help (?) gives; "" says none.
	PsqlURL string
	// Lang is the screen's language, en or es ("" = en).
	Lang string
}

// The live screen's size: below it, a message instead of a broken layout.
const (
	liveMinWidth  = 80
	liveMinHeight = 22
)

// liveRefresh is how often the snapshot is read again.
const liveRefresh = 500 * time.Millisecond

// Model is the live screen's root: the header (which broker runs and
// why), the actors and the figures, and the footer of keys. It turns keys
// into the deployment's faults and payments, each a command whose result
// comes back as a message; the tick reads the snapshot.
type Model struct {
	ctx     context.Context
	d       Deployment
	opts    Options
	st      *screen.Styles
	keys    KeyMap
	help    help.Model
	actors  liveActorsPane
	figures liveFiguresPane
	w, h    int

	tag        int  // the tick chain's; a tick of another is dropped
	refreshing bool // the newest snapshot asked for is being read
	// asked numbers the snapshots asked for, applied the newest one shown:
	// reads overlap (a tick's, a key's), and an older one answering last
	// must not undo a newer one (the broker shown running just after b).
	asked, applied int
	snapErr        error
	brokerBusy     bool // a stop or start runs
	showHelp       bool // ? shows the help instead of the panes
	helpTop        int  // the help's first line shown: ↑/↓ scroll a help longer than the screen
	notice         string
	err            error // the last action's failure
}

// Messages of the live screen's commands.
type (
	liveTickMsg     struct{ tag int }
	liveSnapshotMsg struct {
		seq    int // which snapshot asked for this is
		snap   deploy.Snapshot
		actors []deploy.Actor
		err    error
	}
	livePostedMsg struct {
		n   int
		err error
	}
	liveFaultMsg struct {
		notice string
		err    error
	}
	liveBrokerMsg struct {
		started bool
		err     error
	}
)

// New builds the live screen for o.Deployment.
func New(ctx context.Context, o Options) Model {
	st := screen.Default(true)
	st.Words = catalog.For(o.Lang)
	keys := DefaultKeyMap(st.Words)
	h := help.New()
	h.Styles = st.Help
	m := Model{ctx: ctx, d: o.Deployment, opts: o, st: &st, keys: keys, help: h, tag: 1}
	stream, ok := o.Deployment.Stream()
	m.actors = newLiveActorsPane(m.st, keys, o.Deployment.AckWait(), stream, ok)
	m.figures = newLiveFiguresPane(m.st)
	return m
}

// Init reads the first snapshot and starts the tick.
func (m Model) Init() tea.Cmd {
	return tea.Batch(liveSnapshotCmd(m.ctx, m.d, 0), liveTickCmd(m.tag), tea.RequestBackgroundColor)
}

func liveTickCmd(tag int) tea.Cmd {
	return tea.Tick(liveRefresh, func(time.Time) tea.Msg { return liveTickMsg{tag: tag} })
}

func liveSnapshotCmd(ctx context.Context, d Deployment, seq int) tea.Cmd {
	return func() tea.Msg {
		c, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		s, err := d.Snapshot(c)
		return liveSnapshotMsg{seq: seq, snap: s, actors: s.Actors, err: err}
	}
}

// snapshot asks for a new snapshot, numbered.
func (m *Model) snapshot() tea.Cmd {
	m.asked++
	m.refreshing = true
	return liveSnapshotCmd(m.ctx, m.d, m.asked)
}

func livePostCmd(ctx context.Context, d Deployment, n int) tea.Cmd {
	return func() tea.Msg {
		for i := range n {
			c, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err := d.PostPayment(c, int64(100+i))
			cancel()
			if err != nil {
				return livePostedMsg{n: i, err: err}
			}
		}
		return livePostedMsg{n: n}
	}
}

func liveBrokerCmd(d Deployment, start bool) tea.Cmd {
	return func() tea.Msg {
		if start {
			return liveBrokerMsg{started: true, err: d.StartBroker()}
		}
		return liveBrokerMsg{err: d.StopBroker()}
	}
}

// stallFor is how long s freezes an actor: past AckWait, so JetStream
// delivers its message again.
func (m Model) stallFor() time.Duration {
	if w := m.d.AckWait(); w > 0 {
		return w + 5*time.Second
	}
	return 35 * time.Second
}

// Update routes: window size to every pane, keys to the actors pane while
// it picks an actor, else to the root's keys; results to whoever draws them.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	w := m.st.Words
	switch msg := msg.(type) {
	case tea.BackgroundColorMsg:
		words := m.st.Words
		st := screen.Default(msg.IsDark())
		st.Words = words
		*m.st = st
		m.help.Styles = st.Help
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.layout()
	case liveTickMsg:
		if msg.tag != m.tag {
			return m, nil
		}
		cmds := []tea.Cmd{liveTickCmd(m.tag)}
		if !m.refreshing {
			cmds = append(cmds, m.snapshot())
		}
		return m, tea.Batch(cmds...)
	case liveSnapshotMsg:
		if msg.seq == m.asked {
			m.refreshing = false
		}
		if msg.seq < m.applied {
			return m, nil
		}
		m.applied = msg.seq
		m.snapErr = msg.err
		if !m.actors.streamOK {
			// A broker away at the start: its stream is said once opened.
			m.actors.stream, m.actors.streamOK = m.d.Stream()
			m.actors.ackWait = m.d.AckWait()
		}
		var cmd tea.Cmd
		m.actors, cmd = m.actors.Update(msg)
		m.figures, _ = m.figures.Update(msg)
		return m, cmd
	case livePostedMsg:
		m.err = msg.err
		if msg.err == nil {
			m.notice = w.T("payments just posted: %d (each in one transaction with its outbox row)", msg.n)
		}
		return m, m.snapshot()
	case liveFaultMsg:
		m.notice, m.err = msg.notice, msg.err
		return m, m.snapshot()
	case liveBrokerMsg:
		m.brokerBusy, m.err = false, msg.err
		switch {
		case msg.err != nil:
		case msg.started:
			m.notice = w.Word("JetStream started again on its store: the relays publish what waited in the outbox")
		default:
			m.notice = w.Word("JetStream stopped: publishes fail (the relays retry later), consumers wait; its store is kept")
		}
		return m, m.snapshot()
	case liveActorChosenMsg:
		return m, m.arm(msg)
	case tea.KeyPressMsg:
		if key.Matches(msg, m.keys.Quit) {
			return m, tea.Quit
		}
		if m.showHelp {
			switch {
			case key.Matches(msg, m.keys.Close):
				m.showHelp = false
				m.keys.mode(liveKeysNormal)
			case key.Matches(msg, m.keys.Scroll):
				if s := msg.String(); s == "up" || s == "k" {
					m.helpTop--
				} else {
					m.helpTop++
				}
				m.helpTop = m.clampHelpTop(m.helpTop)
			}
			return m, nil
		}
		if m.actors.choosing != "" {
			var cmd tea.Cmd
			m.actors, cmd = m.actors.Update(msg)
			// The root's keys come back with the choice made, not when its
			// message arrives: a key pressed meanwhile is not lost.
			m.keys.choosing(m.actors.choosing != "")
			if m.actors.choosing == "" {
				m.notice = "" // the fault's own comes with its message
			}
			return m, cmd
		}
		return m.key(msg)
	}
	return m, nil
}

// key is a key of the root's.
func (m Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	w := m.st.Words
	switch {
	case key.Matches(msg, m.keys.Help):
		m.showHelp, m.helpTop = true, 0
		m.keys.mode(liveKeysHelp)
	case key.Matches(msg, m.keys.Post):
		m.notice, m.err = w.Word("posting a payment…"), nil
		return m, livePostCmd(m.ctx, m.d, 1)
	case key.Matches(msg, m.keys.PostTen):
		m.notice, m.err = w.Word("posting 10 payments…"), nil
		return m, livePostCmd(m.ctx, m.d, 10)
	case key.Matches(msg, m.keys.Crash), key.Matches(msg, m.keys.Stall):
		f := fault.Crash
		m.notice = w.T("crash which actor? 1-%d, esc cancels", len(m.actors.actors))
		if key.Matches(msg, m.keys.Stall) {
			f = fault.Stall
			m.notice = w.T("stall which actor for %s (past AckWait)? 1-%d, esc cancels", m.stallFor(), len(m.actors.actors))
		}
		m.err = nil
		m.actors.choose(f)
		m.keys.choosing(true)
		m.layout()
	case key.Matches(msg, m.keys.Broker):
		m.err = nil
		if !m.d.Embedded() {
			m.notice = w.T("the broker runs at %s, not in this process: stop it there", m.opts.BrokerURL)
			return m, nil
		}
		if m.brokerBusy {
			return m, nil
		}
		m.brokerBusy = true
		// From the last snapshot, not the server: asking it would wait on
		// a start under way (one posted to /faults/broker/start), on the
		// screen's goroutine.
		if m.figures.snap == nil || m.figures.snap.BrokerRunning {
			m.notice = w.Word("stopping JetStream…")
			return m, liveBrokerCmd(m.d, false)
		}
		m.notice = w.Word("starting JetStream…")
		return m, liveBrokerCmd(m.d, true)
	}
	return m, nil
}

// arm arms the chosen fault, on bubbletea's goroutine (arming only sets
// what the actor's hook reads at its next checkpoint: it does not block).
func (m *Model) arm(c liveActorChosenMsg) tea.Cmd {
	w := m.st.Words
	m.layout()
	if c.actor == "" {
		return nil
	}
	var err error
	notice := ""
	if c.fault == fault.Crash {
		err = m.d.Crash(c.actor)
		notice = w.T("%s crashes at its next checkpoint; its supervisor starts a new one a second later", c.actor)
	} else {
		d := m.stallFor()
		err = m.d.Stall(c.actor, d)
		notice = w.T("%s freezes for %s at its next checkpoint: its ack comes after AckWait, and JetStream delivers again", c.actor, d)
		if strings.HasPrefix(c.actor, "relay-") {
			notice = w.T("%s freezes for %s at its next checkpoint: what it claimed waits, and its lease may expire for another relay to take", c.actor, d)
		}
	}
	if errors.Is(err, deploy.ErrUnknownActor) {
		return func() tea.Msg { return liveFaultMsg{notice: w.T("no actor %s", c.actor)} }
	}
	return func() tea.Msg { return liveFaultMsg{notice: notice, err: err} }
}

// header is the lines above the panes: which broker runs (and its API),
// wrapped at its separators, then why when the screen is tall enough for
// it (the help says it always).
func (m Model) header() []string {
	st, w := m.st, m.st.Words
	where := w.Word("JetStream embedded in this process")
	if m.opts.BrokerURL != "" {
		where = w.T("NATS JetStream at %s", m.opts.BrokerURL)
	}
	broker := st.App.StatusKey.Render(w.Word("broker")+" ") + st.Live.Broker.Render(where)
	switch snap := m.figures.snap; {
	case snap == nil:
	case !snap.BrokerRunning:
		broker += " " + st.Live.Crashed.Render(w.Word("(stopped)"))
	case snap.BrokerDown():
		// Why, in words, is in the JetStream pane; the header marks it
		// wherever the eye starts.
		broker += " " + st.Live.Crashed.Render("("+w.Word("does not answer")+")")
	}
	items := []string{st.Live.Title.Render("outboxlab live"), broker}
	if m.opts.HTTP != "" {
		items = append(items, st.App.StatusKey.Render("api ")+st.App.StatusValue.Render("http://"+m.opts.HTTP))
	}
	lines := joinWrapped(items, st.App.Status.Render(" │ "), m.w)
	if m.h >= liveWhyHeight {
		for _, why := range m.why() {
			lines = append(lines, wrapStyled(st.Live.Why, why, m.w)...)
		}
	}
	return lines
}

// liveWhyHeight is the height from which the header says why the engine
// runs for real: below it the panes need the rows.
const liveWhyHeight = 32

// why is what the live screen is, beside the simulator.
func (m Model) why() []string {
	w := m.st.Words
	return []string{
		w.Word("the engine runs for real, in real time: relays woken by LISTEN/NOTIFY, consumers pulling, acks after commit"),
		w.Word("the step-by-step simulator keeps the in-process broker: only it waits on a virtual clock"),
	}
}

// joinWrapped joins items with sep, starting a new line where the next
// item would pass w; an item wider than w alone (a NATS URL list) is
// wrapped on lines of its own.
func joinWrapped(items []string, sep string, w int) []string {
	var lines []string
	cur := ""
	for _, it := range items {
		switch {
		case ansi.StringWidth(it) > w:
			if cur != "" {
				lines = append(lines, cur)
			}
			wrapped := strings.Split(ansi.Wrap(it, max(w, 1), " ,"), "\n")
			lines = append(lines, wrapped[:len(wrapped)-1]...)
			cur = wrapped[len(wrapped)-1]
		case cur == "":
			cur = it
		case ansi.StringWidth(cur)+ansi.StringWidth(sep)+ansi.StringWidth(it) <= w:
			cur += sep + it
		default:
			lines = append(lines, cur)
			cur = it
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	for i, l := range lines {
		lines[i] = screen.FitLine(l, w)
	}
	return lines
}

// wrapStyled wraps text at w (words whole where they fit), each line
// styled.
func wrapStyled(style lipgloss.Style, text string, w int) []string {
	var out []string
	for _, l := range strings.Split(ansi.Wrap(text, max(w, 1), " "), "\n") {
		out = append(out, style.Render(strings.TrimRight(l, " ")))
	}
	return out
}

// layout sizes the panes' widths and the help's: the actors on the left,
// the figures beside them. Heights are the render's, which knows how many
// lines the header, the status and the footer take.
func (m *Model) layout() {
	// The figures need about 41 columns at 80, 55 when there is room; the
	// actors the rest, half the width at most.
	left := min(max(m.w-3-55, 36), m.w/2)
	m.actors.SetSize(left, m.actors.h)
	m.figures.SetSize(m.w-left-3, m.figures.h)
	m.help.SetWidth(m.w)
}

// View draws the screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "outboxlab live"
	return v
}

// status is the line under the panes, wrapped to two lines at most: the
// last action's failure, a database that cannot be read, or the notice.
func (m Model) status() []string {
	w := m.st.Words
	var lines []string
	switch {
	case m.err != nil:
		lines = wrapStyled(m.st.App.Error, m.err.Error(), m.w)
	case m.snapErr != nil:
		lines = wrapStyled(m.st.App.Error, w.T("cannot read the database: %s", m.snapErr.Error()), m.w)
	default:
		lines = wrapStyled(m.st.App.Notice, m.notice, m.w)
	}
	if len(lines) > 2 {
		lines = lines[:2]
	}
	return lines
}

// footer is the keys that apply now, wrapped at whole keys.
func (m Model) footer() []string {
	var bindings []key.Binding
	if m.actors.choosing != "" {
		bindings = append(m.actors.ShortHelp(), m.keys.Quit)
	} else {
		bindings = m.keys.ShortHelp()
	}
	hs := m.help.Styles
	var items []string
	for _, b := range bindings {
		if !b.Enabled() {
			continue
		}
		items = append(items, hs.ShortKey.Render(b.Help().Key)+" "+hs.ShortDesc.Render(b.Help().Desc))
	}
	return joinWrapped(items, hs.ShortSeparator.Render(" • "), m.w)
}

func (m Model) render() string {
	w := m.st.Words
	if m.w < liveMinWidth || m.h < liveMinHeight {
		return w.T("terminal too small: the live screen needs %d×%d", liveMinWidth, liveMinHeight)
	}
	lines := m.header()
	lines = append(lines, m.st.Pane.Gutter.Render(strings.Repeat("─", m.w)))
	status, footer := m.status(), m.footer()
	body := max(m.h-len(lines)-len(status)-len(footer), 1)
	if m.showHelp {
		help := m.helpLines(body)
		top := min(m.helpTop, max(len(help)-body, 0))
		lines = append(lines, screen.FitLines(help[top:], m.w, body)...)
	} else {
		actors, figures := m.actors, m.figures
		actors.SetSize(actors.w, body)
		figures.SetSize(figures.w, body)
		gutter := m.st.Pane.Gutter.Render(" │ ")
		lines = append(lines, lipgloss.JoinHorizontal(lipgloss.Top, actors.View(),
			strings.TrimRight(strings.Repeat(gutter+"\n", body), "\n"), figures.View()))
	}
	for _, l := range status {
		lines = append(lines, screen.FitLine(l, m.w))
	}
	lines = append(lines, footer...)
	return strings.Join(lines, "\n")
}

// Run shows the deployment live on the terminal until the learner
// quits (or SIGINT, SIGTERM, SIGHUP, or ctx ends). It neither starts nor
// stops the deployment: its caller does both.
func Run(ctx context.Context, o Options) error {
	if o.Deployment == nil {
		return errors.New("live: no deployment") // the caller's mistake: it starts the deployment
	}
	if o.Lang == "" {
		o.Lang = "en"
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := tea.NewProgram(New(ctx, o), tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithFPS(30))
	defer quit.OnSignal(ctx, p)()
	_, err := p.Run()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrInterrupted) {
		return fmt.Errorf("live: %w", err)
	}
	return nil
}

// bodyHeight is the rows left for the panes or the help between the
// header (and its rule) and the status and footer lines.
func (m Model) bodyHeight() (head, body int) {
	head = len(m.header()) + 1
	return head, max(m.h-head-len(m.status())-len(m.footer()), 1)
}

// clampHelpTop keeps the help's first line where the help's last line can
// still be reached, and no further.
func (m Model) clampHelpTop(top int) int {
	_, body := m.bodyHeight()
	return max(min(top, len(m.helpLines(body))-body), 0)
}
