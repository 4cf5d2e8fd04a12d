"use strict";
// The deskhand trace viewer: a timeline of cells and calls on the left, one item's detail on the
// right. Only the selected item's detail (and its screenshots) is ever rendered.
(function () {
  const records = JSON.parse(document.getElementById("trace-data").textContent);
  const blobs = new Map();
  for (const el of document.querySelectorAll("script.img")) blobs.set(el.dataset.file, el);
  const urls = new Map();
  function imageUrl(file) {
    if (urls.has(file)) return urls.get(file);
    const el = blobs.get(file);
    const url = el ? "data:" + el.dataset.mime + ";base64," + el.textContent.trim() : "";
    urls.set(file, url);
    return url;
  }

  const esc = (s) => String(s == null ? "" : s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const ms = (s) => (s == null ? "" : s < 1 ? Math.round(s * 1000) + " ms" : s.toFixed(2) + " s");

  // --- model -------------------------------------------------------------------------------
  const cells = new Map();
  const calls = [];
  const groups = [];
  let direct = null;
  const alias = new Map();
  let cap = null;
  let session = null;
  for (const r of records) {
    if (r.type === "session") session = r;
    else if (r.type === "cap") cap = r;
    else if (r.type === "cell_start" || r.type === "cell") {
      const c = cells.get(r.cell) || { id: r.cell, calls: [] };
      Object.assign(c, r.type === "cell" ? { end: r } : { start: r });
      c.title = r.title || c.title;
      c.code = r.code != null ? r.code : c.code;
      cells.set(r.cell, c);
      if (r.type === "cell_start") direct = null;
    } else if (r.type === "call") {
      if (r.tool === "get_app_state" && r.structured && typeof r.structured.app === "string" && r.app) {
        alias.set(r.app, r.structured.app);
      }
      calls.push(r);
      if (r.cell == null || !cells.has(r.cell)) {
        if (!direct) { direct = { id: "direct-" + r.seq, title: "direct calls", calls: [], direct: true, seq: r.seq }; groups.push(direct); }
        direct.calls.push(r);
      } else cells.get(r.cell).calls.push(r);
    }
  }
  const appOf = (call) => (call.app ? alias.get(call.app) || call.app : "");
  // Screenshots per app in order: the one before a call is the model's view when it chose the point.
  const shots = new Map();
  for (const call of calls) {
    call.appKey = appOf(call);
    for (const img of call.images || []) {
      if (!shots.has(call.appKey)) shots.set(call.appKey, []);
      shots.get(call.appKey).push({ seq: call.seq, img });
    }
  }
  function around(call) {
    const list = shots.get(call.appKey) || [];
    let before = null, after = null;
    for (const s of list) {
      if (s.seq < call.seq) before = s;
      else if (s.seq >= call.seq && after === null) after = s;
    }
    return { before, after };
  }
  for (const c of cells.values()) { c.seq = c.start ? c.start.seq : c.end.seq; groups.push(c); }
  groups.sort((a, b) => a.seq - b.seq);
  for (const g of groups) g.isError = g.end ? g.end.is_error : g.calls.some((c) => c.is_error);

  // --- timeline ------------------------------------------------------------------------------
  const timeline = document.getElementById("timeline");
  const detail = document.getElementById("detail");
  const byKey = new Map();
  const effectOf = (call) => (call.structured && call.structured.result && call.structured.result.effect) || "";
  const rows = [];
  for (const g of groups) {
    const dur = g.end ? ms(g.end.duration) : g.direct ? "" : "running";
    rows.push('<div class="cell' + (g.isError ? " err" : "") + '" data-cell="' + esc(g.id) + '">');
    rows.push('<div class="cell-head" data-key="cell:' + esc(g.id) + '"><span class="title">' + (g.direct ? "" : "cell " + esc(g.id) + " · ") + esc(g.title || "(untitled)") + '</span><span class="dur">' + dur + "</span></div>");
    byKey.set("cell:" + g.id, { kind: "cell", group: g });
    for (const call of g.calls) {
      const eff = call.is_error ? "error" : effectOf(call);
      rows.push('<div class="call' + (call.is_error ? " err" : "") + '" data-key="call:' + call.seq + '" data-app="' + esc(call.appKey) + '" data-error="' + (call.is_error ? 1 : 0) + '">' +
        '<span class="tool">' + esc(call.tool) + '</span><span class="app">' + esc(call.appKey) + "</span>" +
        (eff ? '<span class="badge ' + esc(eff) + '">' + esc(call.is_error ? call.code || "error" : eff) + "</span>" : "") +
        '<span class="dur">' + ms(call.duration) + "</span></div>");
      byKey.set("call:" + call.seq, { kind: "call", call, group: g });
    }
    rows.push("</div>");
  }
  if (cap) rows.push('<div class="cell err"><div class="cell-head"><span class="title">' + esc(cap.note) + "</span></div></div>");
  timeline.innerHTML = rows.join("");

  const apps = [...new Set(calls.map((c) => c.appKey).filter(Boolean))];
  const select = document.getElementById("filter-app");
  for (const a of apps) { const o = document.createElement("option"); o.value = a; o.textContent = a; select.appendChild(o); }
  const errorsOnly = document.getElementById("filter-errors");
  const nErr = calls.filter((c) => c.is_error).length;
  const n = (k, word) => k + " " + word + (k === 1 ? "" : "s");
  document.getElementById("summary").textContent = n(cells.size, "cell") + " · " + n(calls.length, "call") + " · " + n(nErr, "error") + (session && session.redact ? " · text redacted" : "") + (cap ? " · size cap reached" : "");

  function applyFilters() {
    const app = select.value, onlyErr = errorsOnly.checked;
    for (const cell of timeline.querySelectorAll(".cell[data-cell]")) {
      let shown = 0;
      for (const row of cell.querySelectorAll(".call")) {
        const hide = (app && row.dataset.app !== app) || (onlyErr && row.dataset.error !== "1");
        row.classList.toggle("hidden", hide);
        if (!hide) shown++;
      }
      const head = byKey.get("cell:" + cell.dataset.cell);
      cell.classList.toggle("hidden", shown === 0 && (app !== "" || (onlyErr && !(head && head.group.isError))));
    }
  }
  select.addEventListener("change", applyFilters);
  errorsOnly.addEventListener("change", applyFilters);

  // --- detail ----------------------------------------------------------------------------
  const NS = "http://www.w3.org/2000/svg";
  function overlay(call, img) {
    if (!img.width || !img.height || !call.points || !call.points.length) return "";
    const p = call.points;
    let marks = "";
    if (call.tool === "drag" && p.length === 2) {
      marks += '<line class="path" x1="' + p[0][0] + '" y1="' + p[0][1] + '" x2="' + p[1][0] + '" y2="' + p[1][1] + '"/>';
      marks += '<circle class="mark mark-from" cx="' + p[0][0] + '" cy="' + p[0][1] + '" r="10"/>';
      marks += '<circle class="mark mark-to" cx="' + p[1][0] + '" cy="' + p[1][1] + '" r="10"/>';
    } else {
      marks += '<circle class="mark mark-' + esc(call.tool) + '" cx="' + p[0][0] + '" cy="' + p[0][1] + '" r="16"/>';
      if (call.tool === "scroll") {
        const d = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] }[call.args.direction] || [0, 1];
        const len = 60 * Math.min(3, call.args.pages || 1);
        marks += '<line class="scroll-arrow" x1="' + p[0][0] + '" y1="' + p[0][1] + '" x2="' + (p[0][0] + d[0] * len) + '" y2="' + (p[0][1] + d[1] * len) + '"/>';
      }
    }
    return '<svg xmlns="' + NS + '" viewBox="0 0 ' + img.width + " " + img.height + '" preserveAspectRatio="none">' + marks + "</svg>";
  }
  function shot(label, s, call) {
    if (!s) return '<figure class="shot"><figcaption>' + label + ": none</figcaption></figure>";
    return '<figure class="shot shot-' + label + '"><div class="shot-wrap"><img alt="' + label + '" src="' + imageUrl(s.img.file) + '">' + (label === "before" ? overlay(call, s.img) : "") +
      "</div><figcaption>" + label + " (record " + s.seq + ", " + (s.img.width || "?") + "×" + (s.img.height || "?") + " px)</figcaption></figure>";
  }
  function stateText(text) {
    const cls = (l) => (/^\s*\+/.test(l) ? "diff-add" : /^\s*~/.test(l) ? "diff-change" : /^\s*-/.test(l) ? "diff-del" : "");
    return text.split("\n").map((l) => (cls(l) ? '<span class="' + cls(l) + '">' + esc(l) + "</span>" : esc(l))).join("\n");
  }
  function showCall(call, g) {
    const out = [];
    out.push("<h2>" + esc(call.tool) + " <span class=\"dur\">" + ms(call.duration) + "</span></h2>");
    out.push('<div class="kv"><b>app</b><span>' + esc(call.appKey) + "</span><b>cell</b><span>" + esc(g.direct ? "direct call" : g.id + " · " + (g.title || "")) + "</span>" +
      "<b>started</b><span>" + (call.start != null ? call.start.toFixed(3) + " s" : "") + "</span><b>dispatched</b><span>" + (call.dispatched ? "yes" : "no (refused before dispatch)") + "</span>" +
      (call.points && call.points.length ? "<b>points</b><span>" + esc(JSON.stringify(call.points)) + " (screenshot px)</span>" : "") + "</div>");
    if (call.is_error) out.push('<div class="error-box"><b>' + esc(call.code || "error") + "</b>\n" + esc(call.error) + "</div>");
    const { before, after } = around(call);
    if (call.tool !== "get_app_state" || before) out.push('<div class="shots">' + shot("before", before, call) + shot("after", after, call) + "</div>");
    else if (after) out.push('<div class="shots">' + shot("after", after, call) + "</div>");
    const result = call.structured && call.structured.result;
    out.push('<div class="cols"><div><h3>arguments</h3><pre>' + esc(JSON.stringify(call.args, null, 1)) + "</pre></div>" +
      (result ? "<div><h3>outcome</h3><pre>" + esc(JSON.stringify(result, null, 1)) + "</pre></div>" : "") + "</div>");
    if (call.state != null) out.push("<h3>state the caller received</h3><pre class=\"state\">" + stateText(call.state) + "</pre>");
    if (call.text) out.push("<h3>text</h3><pre>" + esc(call.text) + "</pre>");
    detail.innerHTML = out.join("");
  }
  function showCell(g) {
    const out = ["<h2>" + esc(g.direct ? "direct calls" : "cell " + g.id) + " " + esc(g.title || "") + "</h2>"];
    if (g.end) {
      out.push('<div class="kv"><b>duration</b><span>' + ms(g.end.duration) + "</span><b>calls</b><span>" + g.calls.length + "</span></div>");
      if (g.end.is_error) out.push('<div class="error-box">' + esc((g.end.text || []).join("\n")) + "</div>");
    }
    if (g.code != null) out.push("<h3>code</h3><pre>" + esc(g.code) + "</pre>");
    if (g.end) {
      if (!g.end.is_error) out.push("<h3>result</h3><pre>" + esc((g.end.text || []).join("\n")) + "</pre>");
      if (g.end.structured && Object.keys(g.end.structured).length) out.push("<h3>counters</h3><pre>" + esc(JSON.stringify(g.end.structured, null, 1)) + "</pre>");
      for (const img of g.end.images || []) out.push('<figure class="shot"><img alt="emitted" src="' + imageUrl(img.file) + '"></figure>');
    }
    detail.innerHTML = out.join("");
  }
  let current = null;
  function select_(key, scroll) {
    const item = byKey.get(key);
    if (!item) return;
    if (current) current.classList.remove("selected");
    current = timeline.querySelector('[data-key="' + key + '"]');
    if (current) { current.classList.add("selected"); if (scroll) current.scrollIntoView({ block: "nearest" }); }
    if (item.kind === "call") showCall(item.call, item.group); else showCell(item.group);
    if (history.replaceState) history.replaceState(null, "", "#" + key.replace(":", "-"));
  }
  timeline.addEventListener("click", (e) => {
    const row = e.target.closest("[data-key]");
    if (row) select_(row.dataset.key, false);
  });
  document.addEventListener("keydown", (e) => {
    if (e.target === select) return;
    const visible = [...timeline.querySelectorAll("[data-key]")].filter((el) => el.offsetParent !== null);
    const at = current ? visible.indexOf(current) : -1;
    let next = null;
    if (e.key === "j" || e.key === "ArrowDown") next = visible[Math.min(visible.length - 1, at + 1)];
    else if (e.key === "k" || e.key === "ArrowUp") next = visible[Math.max(0, at - 1)];
    else if (e.key === "e") { errorsOnly.checked = !errorsOnly.checked; applyFilters(); }
    if (next) { e.preventDefault(); select_(next.dataset.key, true); }
  });
  const wanted = (location.hash || "").slice(1).replace("-", ":");
  if (byKey.has(wanted)) select_(wanted, true);
  else if (groups.length) select_("cell:" + groups[0].id, false);
})();
