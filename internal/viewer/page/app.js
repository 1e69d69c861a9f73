// copperhead watch: the page. No build step; plain DOM. The server pushes
// "state" messages (pictures, chips, run state) and "event" messages (the
// run's turns) over one WebSocket; the page fetches each picture by the key
// the server gave it, and starts or stops a run with the session token.
"use strict";
(() => {
  const token = document.querySelector('meta[name="copperhead-token"]').content;
  const $ = (id) => document.getElementById(id);
  const view = $("view"), canvas = $("canvas"), sheet = $("sheet"), toggle = $("toggle");
  let current = null, before = null, mode = "after", showing = 0, chat = false, running = false;

  // Zoom and pan live here, not in the SVG: a re-render replaces the
  // picture inside #canvas and keeps the transform.
  // They are kept in sessionStorage too, so a reload of the page keeps them.
  const zp = { s: 1, x: 0, y: 0 };
  try { Object.assign(zp, JSON.parse(sessionStorage.getItem("copperhead-zoom") || "{}")); } catch (_) { /* a damaged entry: start unzoomed */ }
  const applyZP = () => {
    canvas.style.transform = `translate(${zp.x}px, ${zp.y}px) scale(${zp.s})`;
    view.dataset.zoom = zp.s.toFixed(3);
    try { sessionStorage.setItem("copperhead-zoom", JSON.stringify(zp)); } catch (_) { /* storage off: zoom lasts the page */ }
  };
  view.addEventListener("wheel", (e) => {
    e.preventDefault();
    const r = view.getBoundingClientRect();
    const px = e.clientX - r.left, py = e.clientY - r.top;
    const f = Math.exp(-e.deltaY * 0.0015);
    const s = Math.min(40, Math.max(0.2, zp.s * f));
    zp.x = px - (px - zp.x) * (s / zp.s);
    zp.y = py - (py - zp.y) * (s / zp.s);
    zp.s = s;
    applyZP();
  }, { passive: false });
  let drag = null;
  view.addEventListener("pointerdown", (e) => {
    drag = { x: e.clientX - zp.x, y: e.clientY - zp.y };
    view.classList.add("dragging");
    try { view.setPointerCapture(e.pointerId); } catch (_) { /* a pointer the browser does not track */ }
  });
  view.addEventListener("pointermove", (e) => { if (!drag) return; zp.x = e.clientX - drag.x; zp.y = e.clientY - drag.y; applyZP(); });
  const endDrag = () => { drag = null; view.classList.remove("dragging"); };
  view.addEventListener("pointerup", endDrag);
  view.addEventListener("pointercancel", endDrag);
  $("fit").addEventListener("click", () => { zp.s = 1; zp.x = 0; zp.y = 0; applyZP(); });
  applyZP();

  function setPictures(r) {
    const keep = sheet.value;
    sheet.textContent = "";
    for (const p of (r && r.pictures) || []) {
      const o = document.createElement("option");
      o.value = p.key; o.textContent = p.label;
      sheet.appendChild(o);
    }
    if ([...sheet.options].some((o) => o.value === keep)) sheet.value = keep;
  }

  // show puts the selected picture of the shown generation in #canvas. A
  // slower fetch never overwrites a newer one.
  async function show() {
    const r = mode === "before" && before ? before : current;
    if (!r) return;
    const key = sheet.value;
    const ticket = ++showing;
    let text = "";
    if (key) {
      const res = await fetch(`/svg?gen=${r.gen}&key=${encodeURIComponent(key)}`);
      if (!res.ok) return; // replaced meanwhile: the next state shows the new one
      text = await res.text();
    }
    if (ticket !== showing) return;
    const doc = new DOMParser().parseFromString(text || "<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml");
    const svg = document.importNode(doc.documentElement, true);
    svg.removeAttribute("width"); svg.removeAttribute("height");
    canvas.replaceChildren(svg);
    view.dataset.shownGen = r.gen;
    view.dataset.shownKey = key;
    view.dataset.mode = mode;
    $("render-info").textContent = `render ${r.gen}${mode === "before" ? " (before)" : ""}${r.error ? " · " + r.error : ""}`;
  }
  sheet.addEventListener("change", show);
  toggle.addEventListener("click", () => {
    mode = mode === "after" ? "before" : "after";
    toggle.dataset.mode = mode;
    toggle.textContent = mode === "before" ? `Showing: before (render ${before ? before.gen : "-"})` : "Showing: current";
    show();
  });

  function setChip(el, c) {
    el.dataset.state = c.state; el.dataset.gen = c.gen; el.dataset.errors = c.errors; el.dataset.warnings = c.warnings;
    el.textContent = c.text; el.title = c.text;
  }

  function onState(st) {
    chat = st.chat; running = st.running;
    $("send").disabled = !chat || running;
    $("request").disabled = !chat || running;
    $("stop").disabled = !running;
    const oldGen = current ? current.gen : 0, oldBefore = before ? before.gen : 0;
    current = st.render; before = st.before;
    if (current) { view.dataset.gen = current.gen; }
    if (before) { view.dataset.beforeGen = before.gen; }
    for (const c of st.chips || []) setChip($(c.gate === "ERC" ? "erc-chip" : "drc-chip"), c);
    $("rationale").textContent = (st.rationale || []).slice(-2).join(" · ") || st.error || "";
    $("rationale").title = (st.rationale || []).join("\n");
    view.dataset.running = running;
    const newGen = current ? current.gen : 0, newBefore = before ? before.gen : 0;
    if (newGen !== oldGen || newBefore !== oldBefore) {
      setPictures(current);
      show();
    }
  }

  const log = $("log");
  function kfmt(n) { return n >= 1000 ? (n / 1000).toFixed(1) + "k" : String(n); }
  function onEvent(e) {
    if (e.budget) {
      const p = $("progress");
      p.textContent = `turn ${e.turn}/${e.budget} · ${kfmt(e.tokens_in)} in / ${kfmt(e.tokens_out)} out tokens`;
      p.dataset.turn = e.turn;
    }
    if (e.kind === "turn") return; // the progress line says it
    if (e.kind === "reply" && !e.text) return; // a reply of tool calls only: the calls follow
    const li = document.createElement("li");
    li.dataset.kind = e.kind;
    const k = document.createElement("span");
    k.className = "k"; k.textContent = e.kind === "tool" ? e.tool : e.kind;
    li.appendChild(k);
    let text = e.text || "";
    if (e.kind === "files") text = (e.files || []).join(", ");
    if (e.kind === "verify") text = `${e.tool} ${e.is_error ? "failed" : "passed"}${e.text ? ": " + e.text : ""}`;
    if (e.kind === "end" && e.outcome) {
      text = e.outcome.line;
      li.dataset.ok = e.outcome.ok;
      li.dataset.exit = e.outcome.exit_path;
      if (e.outcome.summary) text += "\n" + e.outcome.summary;
    }
    if (e.is_error) li.dataset.error = "true";
    li.appendChild(document.createTextNode(" " + text));
    if (e.kind === "tool" && e.result && e.result !== e.text) {
      const r = document.createElement("span");
      r.className = "result"; r.textContent = e.result;
      li.appendChild(r);
    }
    log.appendChild(li);
    log.scrollTop = log.scrollHeight;
  }

  async function post(path, body) {
    const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json", "X-Copperhead-Token": token }, body: JSON.stringify(body || {}) });
    if (!res.ok) onEvent({ kind: "error", text: `${res.status}: ${(await res.text()).trim()}` });
  }
  $("chat").addEventListener("submit", (e) => {
    e.preventDefault();
    const req = $("request").value.trim();
    if (!req || running) return;
    log.replaceChildren();
    $("progress").textContent = "starting…";
    post("/api/run", { request: req });
  });
  $("stop").addEventListener("click", () => post("/api/stop"));

  let wait = 500;
  function connect() {
    const conn = $("conn");
    const ws = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
    ws.onopen = () => { conn.dataset.state = "open"; conn.textContent = "live"; wait = 500; log.replaceChildren(); };
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.type === "state") onState(msg);
      else if (msg.type === "event") onEvent(msg);
    };
    ws.onclose = () => {
      conn.dataset.state = "closed"; conn.textContent = "disconnected: retrying";
      setTimeout(connect, wait); wait = Math.min(wait * 2, 8000);
    };
  }
  connect();
})();
