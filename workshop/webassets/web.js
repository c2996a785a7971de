// The web door's page: a name (and the room's password), then the
// learner's simulator in xterm.js over a WebSocket (see workshop/web.go
// for its messages).
"use strict";
(() => {
  const es = (navigator.language || "").toLowerCase().startsWith("es");
  const words = es ? {
    intro: "El outbox transaccional, sobre un PostgreSQL de verdad: el simulador y el curso, en esta página.",
    name: "Tu nombre", password: "La contraseña de la sala", join: "Entrar en la sala",
    note: "Teclas como en un terminal; la rueda del ratón desplaza; selecciona texto para copiarlo (Mayús+arrastrar), pega con Ctrl+V.",
    ended: "Tu sesión terminó.", again: "Volver a entrar",
    small: "El simulador necesita 80×24 caracteres: gira el teléfono (en horizontal) o agranda la ventana.",
    password_err: "Contraseña incorrecta.", name_err: "Escribe un nombre (letras o números).",
    busy_err: "Demasiadas conexiones desde tu dirección.", lost_err: "No se pudo conectar con la sala.",
  } : {
    password_err: "Wrong password.", name_err: "Type a name (letters or digits).",
    busy_err: "Too many connections from your address.", lost_err: "Could not reach the room.",
  };
  if (es) {
    document.documentElement.lang = "es";
    for (const el of document.querySelectorAll("[data-t]")) {
      if (words[el.dataset.t]) el.textContent = words[el.dataset.t];
    }
  }
  const form = document.getElementById("join");
  const nameIn = document.getElementById("name");
  const passIn = document.getElementById("password");
  const errorP = document.getElementById("error");
  const box = document.getElementById("term");
  const ended = document.getElementById("ended");
  const small = document.getElementById("small");
  // An anonymous room asks no name: it names each learner itself.
  if (nameIn) nameIn.value = localStorage.getItem("outboxlab.name") || "";
  if (passIn) passIn.value = sessionStorage.getItem("outboxlab.password") || "";

  let term = null, fit = null;

  // The simulator needs 80×24 cells. A window with fewer at the usual
  // font (a phone held sideways, a small laptop) gets a smaller font, down
  // to fontFloor, below which text is no longer read; only then does the
  // page say the screen is too small, and how to get more room.
  const fontBase = 14, fontFloor = 9, needCols = 80, needRows = 24;
  function fitTerm() {
    let size = fontBase;
    for (;;) {
      if (term.options.fontSize !== size) term.options.fontSize = size;
      const d = fit.proposeDimensions();
      if (!d || (d.cols >= needCols && d.rows >= needRows) || size <= fontFloor) break;
      const scaled = Math.floor(size * Math.min(d.cols / needCols, d.rows / needRows));
      size = Math.max(fontFloor, Math.min(size - 1, scaled));
    }
    fit.fit();
    small.hidden = term.cols >= needCols && term.rows >= needRows;
  }
  const enc = new TextEncoder();

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).catch(() => {});
      return;
    }
    const ta = document.createElement("textarea");
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    try { document.execCommand("copy"); } catch (e) { /* nothing to copy with */ }
    ta.remove();
    term.focus();
  }

  function start() {
    const name = nameIn ? nameIn.value.trim() : "";
    const password = passIn ? passIn.value : "";
    form.hidden = true;
    ended.hidden = true;
    box.hidden = false;
    if (!term) {
      term = new Terminal({ cursorBlink: false, fontFamily: "ui-monospace, Menlo, Consolas, monospace", fontSize: 14,
        theme: { background: "#1e1e2e", foreground: "#cdd6f4" }, allowProposedApi: false, scrollback: 0 });
      fit = new FitAddon.FitAddon();
      term.loadAddon(fit);
      term.open(box);
      term.onSelectionChange(() => { if (term.hasSelection()) copy(term.getSelection()); });
      // Ctrl+V (Cmd+V) is the browser's paste, not a ^V for the program:
      // the paste event that follows reaches the terminal, which sends the
      // text as a paste (bracketed: the simulator takes it as one).
      term.attachCustomKeyEventHandler((ev) =>
        !((ev.ctrlKey || ev.metaKey) && !ev.altKey && ev.key.toLowerCase() === "v"));
    }
    term.reset();
    fitTerm();
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/join");
    ws.binaryType = "arraybuffer";
    let refused = "", opened = false;
    const onData = term.onData((d) => { if (ws.readyState === WebSocket.OPEN) ws.send(enc.encode(d)); });
    const onResize = term.onResize(({ cols, rows }) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ cols, rows }));
    });
    const refit = () => fitTerm();
    window.addEventListener("resize", refit);
    // A font face loaded late (the bold one, met with the first bold
    // text) changes the cells' width: the terminal is fitted again.
    document.fonts.addEventListener("loadingdone", refit);
    ws.onopen = () => {
      opened = true;
      ws.send(JSON.stringify({ name, password, lang: navigator.language || "", cols: term.cols, rows: term.rows }));
      term.focus();
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data === "string") {
        try { refused = JSON.parse(ev.data).error || ""; } catch (e) { /* not ours */ }
        return;
      }
      term.write(new Uint8Array(ev.data));
    };
    ws.onclose = () => {
      onData.dispose();
      onResize.dispose();
      window.removeEventListener("resize", refit);
      document.fonts.removeEventListener("loadingdone", refit);
      small.hidden = true;
      if (refused || !opened) {
        box.hidden = true;
        form.hidden = false;
        errorP.textContent = words[(refused || "lost") + "_err"] || refused;
        if (refused === "password") sessionStorage.removeItem("outboxlab.password");
        return;
      }
      ended.hidden = false;
    };
    if (nameIn) localStorage.setItem("outboxlab.name", name);
    if (passIn) sessionStorage.setItem("outboxlab.password", password);
  }

  form.addEventListener("submit", (ev) => { ev.preventDefault(); errorP.textContent = ""; start(); });
  document.getElementById("again").addEventListener("click", start);
  // A reload (or a page opened again) goes back to the room at once: the
  // room resumes the learner where their name left off.
  if (sessionStorage.getItem("outboxlab.joined") === "1" && (!nameIn || nameIn.value) && (!passIn || passIn.value)) start();
  form.addEventListener("submit", () => sessionStorage.setItem("outboxlab.joined", "1"));
})();
