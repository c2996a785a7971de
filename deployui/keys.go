package deployui

import (
	"charm.land/bubbles/v2/key"
	"github.com/outboxlab/outboxlab/catalog"
	"github.com/outboxlab/outboxlab/screen"
)

// KeyMap holds the live screen's keys. While a fault waits for its
// actor's digit, only the digits and esc apply; while the help shows, only
// what closes it and quit.
type KeyMap struct {
	Post    key.Binding
	PostTen key.Binding
	Crash   key.Binding
	Stall   key.Binding
	Broker  key.Binding
	Actor   key.Binding // a digit: the actor a crash or stall is for
	Cancel  key.Binding
	Help    key.Binding // ? opens the help
	Close   key.Binding // ? or esc closes it
	Scroll  key.Binding // ↑/↓ scroll the help where it is longer than the screen
	Quit    key.Binding
}

// DefaultKeyMap returns the live screen's keys, their help in w's language.
func DefaultKeyMap(w *catalog.Printer) KeyMap {
	k := KeyMap{
		Post:    key.NewBinding(key.WithKeys("p"), key.WithHelp("p", w.T("post a payment"))),
		PostTen: key.NewBinding(key.WithKeys("P"), key.WithHelp("P", w.T("post 10"))),
		Crash:   key.NewBinding(key.WithKeys("c"), key.WithHelp("c", w.T("crash"))),
		Stall:   key.NewBinding(key.WithKeys("s"), key.WithHelp("s", w.T("stall past AckWait"))),
		Broker:  key.NewBinding(key.WithKeys("b"), key.WithHelp("b", w.T("stop/start the broker"))),
		Actor:   key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", w.T("which actor"))),
		Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", w.T("cancel"))),
		Help:    screen.HelpKey(w.T("help, psql")),
		Close:   key.NewBinding(key.WithKeys("?", "esc"), key.WithHelp("?/esc", w.T("close"))),
		Scroll:  key.NewBinding(key.WithKeys("up", "down", "k", "j"), key.WithHelp("↑/↓", w.T("scroll"))),
		Quit:    screen.QuitKey(w),
	}
	k.mode(liveKeysNormal)
	return k
}

// liveKeysMode is which keys apply.
type liveKeysMode int

const (
	liveKeysNormal   liveKeysMode = iota
	liveKeysChoosing              // a fault waits for its actor's digit
	liveKeysHelp                  // the help shows
)

// mode enables the keys of m (quit always).
func (k *KeyMap) mode(m liveKeysMode) {
	for _, b := range []*key.Binding{&k.Post, &k.PostTen, &k.Crash, &k.Stall, &k.Broker, &k.Help} {
		b.SetEnabled(m == liveKeysNormal)
	}
	k.Actor.SetEnabled(m == liveKeysChoosing)
	k.Cancel.SetEnabled(m == liveKeysChoosing)
	k.Close.SetEnabled(m == liveKeysHelp)
	k.Scroll.SetEnabled(m == liveKeysHelp)
}

// choosing enables the digits and esc while a fault waits for its actor,
// the other keys (but quit) otherwise.
func (k *KeyMap) choosing(on bool) {
	if on {
		k.mode(liveKeysChoosing)
	} else {
		k.mode(liveKeysNormal)
	}
}

// ShortHelp is the footer's line.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Post, k.PostTen, k.Crash, k.Stall, k.Broker, k.Actor, k.Cancel, k.Help, k.Close, k.Scroll, k.Quit}
}

// FullHelp is every key.
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// explainedKey is a key as the help (?) lists it: the binding's key, and
// what it does at more length than the footer has room for.
type explainedKey struct {
	b    key.Binding
	says string
}

// explained is every key the help lists, in w's language: those that act
// on the deployment, then the help's own and quit.
func (k KeyMap) explained(w *catalog.Printer) []explainedKey {
	return []explainedKey{
		{k.Post, w.Word("post a payment: the payment and its outbox row in one transaction")},
		{k.PostTen, w.Word("post 10 payments")},
		{k.Crash, w.Word("crash an actor at its next checkpoint; its supervisor starts a new one a second later")},
		{k.Stall, w.Word("stall an actor past AckWait: JetStream delivers its message again, and the inbox ignores the duplicate")},
		{k.Broker, w.Word("stop or start the embedded JetStream: the outbox keeps what waits meanwhile")},
		{k.Help, w.Word("this help (? or esc closes it)")},
		{k.Quit, w.Word("quit")},
	}
}
