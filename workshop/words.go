package workshop

// words are the room's own sentences in a learner's or the instructor's
// language (the simulator's are its catalog's).
type words struct {
	noPty, full, closing, noRestart, paused, pausedWait, overBudget string
	// the instructor's screen
	title, access, learners, http, pauseAsk, pausedNow                     string
	cols                                                                   [9]string
	accessOpen, accessKeys, accessPassword, accessBoth                     string
	starting, connected, disconnected, idle, stuck, none, everyone, sendTo string

	// what a learner is told
	renamed, moved, pausedShort, closingIn, closingWhat, closedBye   string
	handAsk, handPrompt, handUp, handSeen, watching, watched, joined string
	// the instructor's dialogs and board
	stopAsk, closingNow, sendAllAsk, endAsk, filter                string
	more, hostKey, watchTitle, handCol, removed, ended, reportSaid string
	webBoard, notJoined, sayAsk                                    string
	// what the instructor's keys do: their bindings' help (instructorKeys)
	keyHelp keyWords
}

// keyWords say what each of the instructor's keys does, as its footer
// says it after the key; typing is the word for what is typed, not a key.
type keyWords struct {
	choose, lesson, everyone, watch, answer, end, remove, say, pause, report, stop string
	orNumber, typing, toFilter, send, cancel                                       string
	theMessage, pauseIt, theLine, saysIt, cancelSay                                string
	stopIt, stopNow, yes, no, back, answerHand                                     string
}

var wordsByLang = map[string]words{
	"en": {
		noPty:          "outboxlab workshop: this is a terminal app and your ssh asked for no terminal.\nConnect with a plain `ssh -p PORT NAME@HOST` (no command after it; add -t if you gave one).\n",
		full:           "outboxlab workshop: the room is full (%d learners connected). Ask the instructor, or try again when someone leaves.\n",
		closing:        "outboxlab workshop: the room is closing.\n",
		overBudget:     "outboxlab workshop: your simulator could not start: your %d PostgreSQL connections are all in use (psql sessions of yours count too). Close a psql of yours and connect again.\n",
		noRestart:      "restart-postgres is off in a workshop: the PostgreSQL is shared by the whole room, and restarting it would stop everyone's simulator",
		paused:         "‖ The instructor paused the room",
		pausedWait:     "Your simulator waits as you left it; it carries on when the room resumes.",
		title:          "outboxlab workshop",
		access:         "ssh -p %s NAME@%s · access: %s",
		learners:       "%d of %d learners connected",
		http:           "metrics: http://%s/metrics",
		pauseAsk:       "Pause the room with a message:",
		pausedNow:      "‖ paused: %q · p resumes",
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
		renamed:        "%s is connected already, so this session is %s (your progress here is kept under that name)",
		moved:          "the instructor moved you to lesson %d: %s",
		pausedShort:    "paused",
		closingIn:      "The room closes in %d s",
		closingWhat:    "Your session then ends as your own q would; your progress is kept for the next time.",
		closedBye:      "outboxlab workshop: the instructor closed the room; your progress is kept for next time.\n",
		handAsk:        "what you need (optional)",
		handPrompt:     "✋ enter raises your hand · esc cancels:",
		handUp:         "✋ your hand is up: the instructor sees it",
		handSeen:       "✋ the instructor saw your hand",
		watching:       "the instructor is looking at your screen",
		watched:        "◉ instructor watching",
		joined:         "you are %s · ! raises your hand",
		stopAsk:        "Stop the room? %d learners connected: they see a %d s countdown, then their sessions end as their own q would.",
		closingNow:     "closing in %d s · q closes now · esc cancels",
		sendAllAsk:     "Send all %d connected learners to lesson %d: %s?",
		endAsk:         "End %s's session? Their screen closes as their own q would; their progress is kept.",
		filter:         "filter: %s",
		more:           "… %d more",
		hostKey:        "host key %s",
		watchTitle:     "%s's screen (read-only)",
		handCol:        "✋ %s ago",
		removed:        "%s taken off the list",
		ended:          "%s's session ended",
		reportSaid:     "report written: %s",
		webBoard:       "in a browser: %s · projector: %s",
		notJoined:      "not joined",
		sayAsk:         "Say to every learner (shown for 10 s, the room keeps going):",
		keyHelp: keyWords{
			choose: "select", lesson: "lesson", everyone: "everyone's", watch: "watch", answer: "answer ✋", end: "end", remove: "remove", say: "say", pause: "pause", report: "report", stop: "stop",
			orNumber: "or a number", typing: "type", toFilter: "to filter", send: "send", cancel: "cancel",
			theMessage: "the message", pauseIt: "pause", theLine: "the line", saysIt: "says it", cancelSay: "cancel",
			stopIt: "stop", stopNow: "stop now", yes: "yes", no: "no", back: "back to the room", answerHand: "answer their hand",
		},
	},
	"es": {
		noPty:          "outboxlab workshop: es una aplicación de terminal y tu ssh no pidió terminal.\nConéctate con un simple `ssh -p PUERTO NOMBRE@HOST` (sin comando detrás; añade -t si diste uno).\n",
		full:           "outboxlab workshop: la sala está llena (%d participantes conectados). Pregunta al instructor, o vuelve a intentarlo cuando alguien salga.\n",
		closing:        "outboxlab workshop: la sala está cerrando.\n",
		overBudget:     "outboxlab workshop: tu simulador no pudo arrancar: tus %d conexiones a PostgreSQL están todas en uso (tus sesiones de psql también cuentan). Cierra un psql tuyo y vuelve a conectarte.\n",
		noRestart:      "restart-postgres está desactivado en un taller: el PostgreSQL lo comparte toda la sala, y reiniciarlo pararía el simulador de todos",
		paused:         "‖ El instructor pausó la sala",
		pausedWait:     "Tu simulador espera tal como lo dejaste; sigue cuando la sala se reanude.",
		title:          "outboxlab workshop",
		access:         "ssh -p %s NOMBRE@%s · acceso: %s",
		learners:       "%d de %d participantes conectados",
		http:           "métricas: http://%s/metrics",
		pauseAsk:       "Pausar la sala con un mensaje:",
		pausedNow:      "‖ en pausa: %q · p reanuda",
		cols:           [9]string{"participante", "lección", "paso", "en paso", "compr.", "pistas", "pasos", "estado", ""},
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
		renamed:        "%s ya está conectado, así que esta sesión es %s (tu progreso aquí se guarda con ese nombre)",
		moved:          "el instructor te llevó a la lección %d: %s",
		pausedShort:    "en pausa",
		closingIn:      "La sala se cierra en %d s",
		closingWhat:    "Después tu sesión termina como con tu propia q; tu progreso se guarda para la próxima vez.",
		closedBye:      "outboxlab workshop: el instructor cerró la sala; tu progreso se guarda para la próxima vez.\n",
		handAsk:        "qué necesitas (opcional)",
		handPrompt:     "✋ enter levanta la mano · esc cancela:",
		handUp:         "✋ tienes la mano levantada: el instructor la ve",
		handSeen:       "✋ el instructor vio tu mano",
		watching:       "el instructor está mirando tu pantalla",
		watched:        "◉ el instructor mira",
		joined:         "eres %s · ! levanta la mano",
		stopAsk:        "¿Cerrar la sala? %d participantes conectados: verán una cuenta atrás de %d s y luego sus sesiones terminarán como con su propia q.",
		closingNow:     "se cierra en %d s · q cierra ya · esc cancela",
		sendAllAsk:     "¿Enviar a los %d participantes conectados a la lección %d: %s?",
		endAsk:         "¿Terminar la sesión de %s? Su pantalla se cierra como con su propia q; su progreso se guarda.",
		filter:         "filtro: %s",
		more:           "… %d más",
		hostKey:        "clave del servidor %s",
		watchTitle:     "pantalla de %s (solo lectura)",
		handCol:        "✋ hace %s",
		removed:        "%s fuera de la lista",
		ended:          "sesión de %s terminada",
		reportSaid:     "informe escrito: %s",
		webBoard:       "en un navegador: %s · proyector: %s",
		notJoined:      "sin llegar",
		sayAsk:         "Decir a todos (se ve 10 s, la sala sigue):",
		keyHelp: keyWords{
			choose: "elegir", lesson: "lección", everyone: "la de todos", watch: "mirar", answer: "responder ✋", end: "terminar", remove: "quitar", say: "decir", pause: "pausa", report: "informe", stop: "cerrar",
			orNumber: "o un número", typing: "escribe", toFilter: "para filtrar", send: "enviar", cancel: "cancelar",
			theMessage: "el mensaje", pauseIt: "pausar", theLine: "la línea", saysIt: "la dice", cancelSay: "cancela",
			stopIt: "cerrar", stopNow: "cerrar ya", yes: "sí", no: "no", back: "vuelve a la sala", answerHand: "responde a su mano",
		},
	},
}

func wordsFor(lang string) words {
	if w, ok := wordsByLang[lang]; ok {
		return w
	}
	return wordsByLang["en"]
}
