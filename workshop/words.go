package workshop

// words are the room's own sentences in a learner's or the instructor's
// language (the simulator's are its catalog's).
type words struct {
	noPty, full, closing, noRestart, paused, pausedWait, overBudget string
	// the instructor's screen
	title, access, learners, http, keys, keysPicker, keysPause, pauseAsk, pausedNow string
	cols                                                                            [9]string
	accessOpen, accessKeys, accessPassword, accessBoth                              string
	starting, connected, disconnected, idle, stuck, none, everyone, sendTo          string
}

var wordsByLang = map[string]words{
	"en": {
		noPty:          "outboxlab workshop: this is a terminal app and your ssh asked for no terminal.\nConnect with a plain `ssh -p PORT NAME@HOST` (no command after it; add -t if you gave one).\n",
		full:           "outboxlab workshop: the room is full (%d learners connected). Ask the instructor, or try again when someone leaves.\n",
		closing:        "outboxlab workshop: the room is closing.\n",
		overBudget:     "outboxlab workshop: your simulator could not start: your %d PostgreSQL connections are all in use (psql sessions of yours count too). Close a psql of yours and connect again.\n",
		noRestart:      "restart-postgres is off in a workshop: the PostgreSQL is shared by the whole room, and restarting it would stop everyone's simulator",
		paused:         "⏸ The instructor paused the room",
		pausedWait:     "Your simulator waits as you left it; it carries on when the room resumes.",
		title:          "outboxlab workshop",
		access:         "ssh -p %s NAME@%s · access: %s",
		learners:       "%d of %d learners connected",
		http:           "metrics: http://%s/metrics",
		keys:           "↑/↓ select · l send the selected to a lesson · L send everyone · p pause the room · q stop the room",
		keysPicker:     "↑/↓ choose · enter send · esc cancel",
		keysPause:      "type the message · enter pause · esc cancel",
		pauseAsk:       "Pause the room with a message:",
		pausedNow:      "⏸ paused: %q · p resumes",
		cols:           [9]string{"learner", "lesson", "step", "on step", "checks", "hints", "passed", "state", ""},
		accessOpen:     "any user name, no password (loopback only)",
		accessKeys:     "only the keys in %s",
		accessPassword: "anyone with the password",
		accessBoth:     "the keys in %s, or the password",
		starting:       "starting",
		connected:      "working",
		disconnected:   "disconnected",
		idle:           "idle",
		stuck:          "STUCK",
		none:           "No learner yet: they connect with the ssh line above.",
		everyone:       "everyone",
		sendTo:         "Send %s to:",
	},
	"es": {
		noPty:          "outboxlab workshop: es una aplicación de terminal y tu ssh no pidió terminal.\nConéctate con un simple `ssh -p PUERTO NOMBRE@HOST` (sin comando detrás; añade -t si diste uno).\n",
		full:           "outboxlab workshop: la sala está llena (%d participantes conectados). Pregunta al instructor, o vuelve a intentarlo cuando alguien salga.\n",
		closing:        "outboxlab workshop: la sala está cerrando.\n",
		overBudget:     "outboxlab workshop: tu simulador no pudo arrancar: tus %d conexiones a PostgreSQL están todas en uso (tus sesiones de psql también cuentan). Cierra un psql tuyo y vuelve a conectarte.\n",
		noRestart:      "restart-postgres está desactivado en un taller: el PostgreSQL lo comparte toda la sala, y reiniciarlo pararía el simulador de todos",
		paused:         "⏸ El instructor pausó la sala",
		pausedWait:     "Tu simulador espera tal como lo dejaste; sigue cuando la sala se reanude.",
		title:          "outboxlab workshop",
		access:         "ssh -p %s NOMBRE@%s · acceso: %s",
		learners:       "%d de %d participantes conectados",
		http:           "métricas: http://%s/metrics",
		keys:           "↑/↓ elegir · l enviar al elegido a una lección · L enviar a todos · p pausar la sala · q cerrar la sala",
		keysPicker:     "↑/↓ elegir · enter enviar · esc cancelar",
		keysPause:      "escribe el mensaje · enter pausar · esc cancelar",
		pauseAsk:       "Pausar la sala con un mensaje:",
		pausedNow:      "⏸ en pausa: %q · p reanuda",
		cols:           [9]string{"participante", "lección", "paso", "en el paso", "checks", "pistas", "pasados", "estado", ""},
		accessOpen:     "cualquier nombre, sin contraseña (solo loopback)",
		accessKeys:     "solo las claves de %s",
		accessPassword: "quien tenga la contraseña",
		accessBoth:     "las claves de %s, o la contraseña",
		starting:       "arrancando",
		connected:      "trabajando",
		disconnected:   "desconectado",
		idle:           "inactivo",
		stuck:          "ATASCADO",
		none:           "Aún no hay participantes: se conectan con la línea ssh de arriba.",
		everyone:       "todos",
		sendTo:         "Enviar a %s a:",
	},
}

func wordsFor(lang string) words {
	if w, ok := wordsByLang[lang]; ok {
		return w
	}
	return wordsByLang["en"]
}
