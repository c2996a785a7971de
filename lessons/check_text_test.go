package lessons

import "testing"

// A check's line is the check as written in English and the same said in
// Spanish words in a Spanish lesson, for every kind of check.
func TestCheckTextInEachLanguage(t *testing.T) {
	e := env{pipelines: []string{"naive", "outbox"}, actors: []string{"api", "naive", "relay-1", "accounting", "broker"}}
	one := env{pipelines: []string{"outbox"}, actors: e.actors}
	for _, c := range []struct {
		src string
		e   env
		es  string
	}{
		{"oracle: naive effects == 2", e, "oráculo: naive efectos == 2"},
		{"oracle: lost_events == 0", one, "oráculo: eventos perdidos == 0"},
		{"oracle: notifications == 1", one, "oráculo: notificaciones == 1"},
		{"table: naive payments count == 2", e, "tabla: naive filas de payments == 2"},
		{"table: ledger_entries count == 1", one, "tabla: filas de ledger_entries == 1"},
		{"timeline: api crashed at api.committed", one, "cronología: api se cayó en api.committed"},
		{"timeline: relay-1 reached relay.claimed == 2", one, "cronología: relay-1 llegó a relay.claimed (veces == 2)"},
		{"timeline: relay-1 restarted >= 2", one, "cronología: relay-1 se reinició (veces >= 2)"},
		{"timeline: accounting blocked", one, "cronología: accounting esperó un lock de fila"},
		{"actor: relay-1 is stalled at relay.claimed", one, "actor: relay-1 está congelado en relay.claimed"},
		{"actor: broker is down", one, "actor: broker está caído"},
		{"chaos: naive_lost_runs >= 1", one, "caos: ejecuciones naive con pérdidas >= 1"},
	} {
		ch, err := parseCheck(c.src, c.e)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := ch.Text(); got != c.src {
			t.Errorf("English: %q, want the check as written", got)
		}
		ch.Lang = "en"
		if got := ch.Text(); got != c.src {
			t.Errorf("English: %q, want the check as written", got)
		}
		ch.Lang = "es"
		if got := ch.Text(); got != c.es {
			t.Errorf("%s: %q, want %q", c.src, got, c.es)
		}
	}
	// What an actor check found says the state in the check's language too.
	c := Check{Lang: "es"}
	if got := c.words().T("%s is %s%s", "relay-1", c.state("stalled"), ""); got != "relay-1 está congelado" {
		t.Errorf("found: %q", got)
	}
}
