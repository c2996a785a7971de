// The room's page for the projector: the instructor's list, live (an
// EventSource on /room/learners), and a learner's screen read-only in an
// xterm.js (/room/watch/ID). See workshop/web_room.go.
"use strict";
(() => {
  const es = (navigator.language || "").toLowerCase().startsWith("es");
  const words = es ? {
    title: "la sala", learner: "participante", door: "entrada", lesson: "lección", step: "paso", state: "estado",
    onstep: "en el paso", checks: "checks", hints: "pistas", passed: "superados", watching: "Mirando a", stop: "dejar de mirar",
    empty: "Aún no hay participantes: entran en la página / de esta dirección.", connected: "conectados",
    working: "trabajando", stuck: "atascado", idle: "inactivo", left: "desconectado", hand: "mano levantada", starting: "arrancando",
  } : { connected: "connected", working: "working", stuck: "stuck", idle: "idle", left: "left", hand: "hand up", starting: "starting" };
  if (es) {
    document.documentElement.lang = "es";
    for (const el of document.querySelectorAll("[data-t]")) if (words[el.dataset.t]) el.textContent = words[el.dataset.t];
  }
  const tbody = document.querySelector("#learners tbody");
  const empty = document.getElementById("empty");
  const count = document.getElementById("count");
  const watch = document.getElementById("watch");
  const screen = document.getElementById("screen");
  let term = null, watching = null, source = null;

  function state(v) {
    if (!v.Connected) return words.left;
    if (v.Hand) return words.hand + (v.HandText ? ": " + v.HandText : "");
    if (v.Stuck) return words.stuck;
    if (v.Idle) return words.idle;
    if (!v.Ready) return words.starting;
    return words.working;
  }

  function cell(tr, text) {
    const td = document.createElement("td");
    td.textContent = text;
    tr.appendChild(td);
  }

  const list = new EventSource("room/learners");
  list.onmessage = (ev) => {
    const vs = JSON.parse(ev.data);
    tbody.replaceChildren();
    empty.hidden = vs.length > 0;
    count.textContent = vs.filter((v) => v.Connected).length + " " + words.connected;
    for (const v of vs) {
      const tr = document.createElement("tr");
      tr.dataset.id = v.ID;
      if (v.ID === watching) tr.className = "watched";
      if (!v.Connected) tr.classList.add("left");
      cell(tr, v.ID);
      cell(tr, v.Door);
      cell(tr, v.Lesson);
      cell(tr, v.Steps ? v.Step + "/" + v.Steps : "");
      cell(tr, state(v));
      cell(tr, v.OnStep);
      cell(tr, v.Total ? v.Checks + "/" + v.Total : "");
      cell(tr, String(v.Hints));
      cell(tr, String(v.Passed));
      tr.addEventListener("click", () => look(v.ID));
      tbody.appendChild(tr);
    }
  };

  // width is a line's width in cells, escape sequences left out.
  const width = (line) => [...line.replace(/\x1b\[[0-9;?]*[ -\/]*[@-~]/g, "")].length;

  function look(id) {
    if (source) source.close();
    watching = id;
    document.getElementById("watched").textContent = id;
    watch.hidden = false;
    if (!term) {
      term = new Terminal({ disableStdin: true, cursorBlink: false, scrollback: 0, fontSize: 12,
        fontFamily: "ui-monospace, Menlo, Consolas, monospace", theme: { background: "#1e1e2e", foreground: "#cdd6f4" } });
      term.open(screen);
    }
    source = new EventSource("room/watch/" + encodeURIComponent(id));
    source.onmessage = (ev) => {
      const lines = ev.data.split("\n");
      const cols = Math.max(20, ...lines.map(width));
      const rows = Math.max(5, lines.length);
      if (term.cols !== cols || term.rows !== rows) term.resize(cols, rows);
      term.write("\x1b[H\x1b[2J" + lines.join("\r\n"));
    };
  }

  document.getElementById("stop").addEventListener("click", () => {
    if (source) source.close();
    source = null;
    watching = null;
    watch.hidden = true;
  });
})();
