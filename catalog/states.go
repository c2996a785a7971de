package catalog

import "strings"

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
	// Faults armed on an actor, as the pipeline marks them (⚑ caída@acked).
	"fault crash":       "caída",
	"fault stall":       "congelación",
	"fault fail-commit": "fallo-COMMIT",
	"fault drop-commit": "COMMIT-sin-respuesta",
	"fault duplicate":   "duplicado",
}

// State is a checkpoint's last part, a timeline entry's kind or ("fault
// " and its name) a fault armed, in the printer's language.
func (p *Printer) State(s string) string {
	if p != nil && p.Word("en") != "en" {
		if es, ok := states[s]; ok {
			return es
		}
	}
	if f, ok := strings.CutPrefix(s, "fault "); ok {
		return f
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

// columns are the tables pane's headers in Spanish: the header is a short
// name for the column (lease until is locked_until), not SQL, so it is
// said in the screen's language; the glossary's English terms stay.
var columns = map[string]string{
	"aggregate":    "agregado",
	"att":          "int",
	"lease until":  "lease hasta",
	"next attempt": "próx. intento",
	"published":    "publicado",
	"dead":         "dead letter",
	"last error":   "último error",
	"client":       "cliente",
	"amount":       "importe",
	"cur":          "mon",
	"created":      "creado",
	"last seq":     "último seq",
	"consumer":     "consumidor",
	"message":      "mensaje",
	"processed":    "procesado",
	"payment":      "pago",
	"at":           "hora",
	"body":         "cuerpo",
	"type":         "tipo",
	"parked":       "aparcado",
}

// Column is a table's column header in the printer's language.
func (p *Printer) Column(name string) string {
	if p != nil && p.Word("en") != "en" {
		if es, ok := columns[name]; ok {
			return es
		}
	}
	return name
}
