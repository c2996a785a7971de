package catalog

// The words the screen draws for where an actor stands (a checkpoint's
// last part: relay.claimed is "claimed") and for what a timeline entry is
// (its kind). English draws them as the engine names them; Spanish draws a
// word of its own, so "● claimed" or a timeline's "acked" is no English on
// a Spanish screen. A checkpoint written whole (relay.published) is code
// and stays as it is. They are a table of their own, not messages: the
// same English word is another message elsewhere ("published", the
// guarantees' figure, is «publicadas»).
var states = map[string]string{
	// Checkpoints, by their last part.
	"begin":           "inicio",
	"inserted":        "insertado",
	"committed":       "confirmado",
	"replayed":        "repetido",
	"resolved":        "resuelto",
	"published":       "publicado",
	"claimed":         "tomado",
	"marked":          "marcado",
	"retry_scheduled": "reintento",
	"dead_lettered":   "dead letter",
	"lease_lost":      "lease perdido",
	"received":        "recibido",
	"confirmed":       "ACK del broker",
	"delivered":       "entregado",
	"inbox_inserted":  "en el inbox",
	"duplicate":       "duplicado",
	"version_gap":     "versión saltada",
	"effect_applied":  "efecto aplicado",
	"acked":           "con ACK",
	"called":          "llamado",
	// Timeline entries' kinds.
	"checkpoint": "punto",
	"answer":     "respuesta",
	"command":    "orden",
	"fault":      "fallo",
	"crash":      "CAÍDA",
	"CRASH":      "CAÍDA",
	"restart":    "reinicio",
	"blocked":    "bloqueado",
	"error":      "error",
	"clock":      "reloj",
	"note":       "nota",
	"skip":       "omitido",
	"stuck":      "atascado",
	"down":       "caído",
}

// State is a checkpoint's last part or a timeline entry's kind in the
// printer's language.
func (p *Printer) State(s string) string {
	if p == nil || p.Word("en") == "en" {
		return s
	}
	if es, ok := states[s]; ok {
		return es
	}
	return s
}

// States lists the state words Spanish draws, as (English, Spanish).
func States() [][2]string {
	out := make([][2]string, 0, len(states))
	for en, es := range states {
		out = append(out, [2]string{en, es})
	}
	return out
}
