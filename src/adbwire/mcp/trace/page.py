"""The viewer page's HTML, style and script (kept apart from the Python that fills it in).

The script reads the JSON block and builds the summary, the filmstrip and the selected
step's view with DOM calls (text only through ``textContent``). Over the screen before an
action it draws, in SVG, the element acted on and a swipe's path; over both screens, the
point. Keys move between steps: ← → (or k j), Home, End; ``f`` goes to the next failed step.
"""

from __future__ import annotations

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<header><h1 id="title">adbwire trace</h1><div id="summary" role="status"></div></header>
<nav id="filmstrip" aria-label="steps"></nav>
<main id="detail"></main>
<footer>Keys: &#8592; &#8594; (or k j) move between steps, Home and End jump,
f goes to the next failed step.</footer>
<script type="application/json" id="trace-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""

STYLE = """
:root { --bad: #c62828; --bad-bg: #fdecea; --crash: #8e0000; --ok: #2e7d32; --line: #d0d4d9;
  --muted: #5f6670; --mark: #ff1744; font-family: system-ui, sans-serif; font-size: 14px; }
body { margin: 0; color: #1d2329; background: #f5f6f8; }
header { padding: 10px 16px; background: #fff; border-bottom: 1px solid var(--line); }
h1 { font-size: 17px; margin: 0 0 6px; }
#summary span { margin-right: 14px; }
#summary .bad { color: var(--bad); font-weight: 600; }
#filmstrip { display: flex; gap: 8px; overflow-x: auto; padding: 10px 16px;
  background: #fff; border-bottom: 1px solid var(--line); }
.step { flex: 0 0 auto; width: 124px; border: 2px solid var(--line); border-radius: 6px;
  background: #fff; padding: 4px; text-align: left; cursor: pointer; font: inherit; }
.step img { display: block; width: 116px; height: 140px; object-fit: contain; background: #222; }
.step .noshot { display: flex; width: 116px; height: 140px; align-items: center;
  justify-content: center; background: #eceff1; color: var(--muted); font-size: 12px; }
.step .label { font-size: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.step.failed { border-color: var(--bad); background: var(--bad-bg); }
.step.crash { border-color: var(--crash); background: var(--crash); color: #fff; }
.step.selected { outline: 3px solid #1565c0; outline-offset: 1px; }
.badge { display: inline-block; padding: 0 5px; border-radius: 3px; font-size: 11px;
  font-weight: 700; color: #fff; background: var(--bad); margin-left: 4px; }
.crash .badge, .badge.crash { background: #fff; color: var(--crash);
  border: 1px solid var(--crash); }
main { padding: 12px 16px; }
h2 { font-size: 16px; margin: 0 0 8px; }
.outcome-ok { color: var(--ok); } .outcome-bad { color: var(--bad); }
.error { border-left: 4px solid var(--bad); background: var(--bad-bg); padding: 8px 10px;
  margin: 8px 0; white-space: pre-wrap; }
.screens { display: flex; gap: 16px; flex-wrap: wrap; margin: 10px 0; }
.screen { position: relative; display: inline-block; }
.screen img { display: block; max-height: 560px; max-width: 45vw; background: #222; }
.screen svg { position: absolute; left: 0; top: 0; width: 100%; height: 100%;
  pointer-events: none; }
.screen .missing { width: 240px; height: 400px; display: flex; align-items: center;
  justify-content: center; text-align: center; background: #eceff1; color: var(--muted);
  padding: 8px; }
figure { margin: 0; }
figcaption { font-size: 12px; color: var(--muted); margin-top: 3px; }
section { margin: 10px 0; }
h3 { font-size: 13px; margin: 0 0 4px; color: var(--muted); text-transform: uppercase; }
pre { background: #fff; border: 1px solid var(--line); padding: 8px; margin: 0;
  white-space: pre-wrap; word-break: break-word; max-height: 320px; overflow: auto;
  font-size: 12px; }
footer { padding: 8px 16px 16px; color: var(--muted); font-size: 12px; }
"""

SCRIPT = """
"use strict";
(function () {
  const trace = JSON.parse(document.getElementById("trace-data").textContent);
  const steps = trace.steps;
  const SVG = "http://www.w3.org/2000/svg";
  let selected = -1;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function failed(step) { return step.outcome !== "ok"; }
  function shot(step) {
    const s = step.screens || {};
    return (s.after && s.after.src) ? s.after : ((s.before && s.before.src) ? s.before : null);
  }
  function ms(value) {
    if (typeof value !== "number") return "?";
    return value < 1000 ? value + " ms" : (value / 1000).toFixed(2) + " s";
  }
  function pretty(value) { return JSON.stringify(value, null, 2); }

  function summary() {
    const box = document.getElementById("summary");
    const header = trace.header || {};
    const name = header.title || String(trace.directory || "").split(/[\\\\/]/).pop();
    document.getElementById("title").textContent = "adbwire trace" + (name ? ": " + name : "");
    const failures = steps.filter(failed).length;
    const crashes = steps.filter(function (s) { return s.crash; }).length;
    const total = steps.reduce(function (sum, s) {
      return sum + (typeof s.duration_ms === "number" ? s.duration_ms : 0); }, 0);
    const parts = [
      ["steps", steps.length + " steps", false],
      ["failures", failures + " failed", failures > 0],
      ["crashes", crashes + (crashes === 1 ? " crash" : " crashes"), crashes > 0],
      ["total", ms(total) + " in tools", false],
    ];
    if (header.created) parts.push(["created", "recorded " + header.created, false]);
    if (trace.dropped_steps) parts.push(["dropped", trace.dropped_steps +
      " steps not kept (size budget)", true]);
    if (trace.skipped_lines) parts.push(["skipped", trace.skipped_lines +
      " unreadable lines skipped", true]);
    parts.forEach(function (p) {
      const span = el("span", p[2] ? "bad" : "", p[1]);
      span.id = "summary-" + p[0];
      box.appendChild(span);
    });
  }

  function filmstrip() {
    const strip = document.getElementById("filmstrip");
    steps.forEach(function (step, i) {
      const tile = el("button", "step");
      tile.type = "button";
      tile.dataset.index = String(step.index);
      tile.dataset.tool = step.tool;
      tile.dataset.outcome = step.outcome;
      if (failed(step)) tile.classList.add("failed");
      if (step.crash) tile.classList.add("crash");
      const image = shot(step);
      if (image) {
        const img = el("img");
        img.alt = "screen after step " + step.index;
        img.src = image.src;
        tile.appendChild(img);
      } else {
        tile.appendChild(el("div", "noshot", "no screen"));
      }
      const label = el("div", "label", "#" + step.index + " " + step.tool);
      tile.appendChild(label);
      tile.appendChild(el("div", "label", ms(step.duration_ms)));
      if (step.crash) tile.appendChild(el("span", "badge crash", "CRASH"));
      else if (failed(step)) {
        tile.appendChild(el("span", "badge", step.outcome === "error" ? "FAILED" :
          String(step.outcome).toUpperCase()));
      }
      tile.title = step.summary || step.tool;
      tile.addEventListener("click", function () { select(i); });
      strip.appendChild(tile);
    });
  }

  function marks(svg, step, screen, moment) {
    const t = step.target;
    if (!t || !screen.device_width || !screen.device_height) return;
    const stroke = Math.max(screen.device_width, screen.device_height) / 160;
    function add(tag, attrs) {
      const node = document.createElementNS(SVG, tag);
      Object.keys(attrs).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
      svg.appendChild(node);
      return node;
    }
    if (Array.isArray(t.bounds) && moment === "before") {
      add("rect", { "class": "mark-bounds", x: t.bounds[0], y: t.bounds[1],
        width: Math.max(1, t.bounds[2] - t.bounds[0]),
        height: Math.max(1, t.bounds[3] - t.bounds[1]),
        fill: "rgba(255,23,68,0.12)", stroke: "#ff1744", "stroke-width": stroke });
    }
    if (Array.isArray(t.path) && moment === "before") {
      add("line", { "class": "mark-path", x1: t.path[0], y1: t.path[1],
        x2: t.path[2], y2: t.path[3],
        stroke: "#ff1744", "stroke-width": stroke * 1.5, "stroke-linecap": "round" });
      add("circle", { cx: t.path[2], cy: t.path[3], r: stroke * 3, fill: "#ff1744" });
    }
    if (Array.isArray(t.point)) {
      add("circle", { "class": "mark-point", cx: t.point[0], cy: t.point[1], r: stroke * 4,
        fill: "rgba(255,23,68,0.35)", stroke: "#fff", "stroke-width": stroke / 2 });
    }
  }

  function screenView(step, moment) {
    const figure = el("figure", "screen-figure");
    figure.dataset.moment = moment;
    const screen = (step.screens || {})[moment];
    const box = el("div", "screen");
    if (screen && screen.src) {
      const img = el("img");
      img.alt = moment + " step " + step.index;
      img.src = screen.src;
      box.appendChild(img);
      const svg = document.createElementNS(SVG, "svg");
      svg.setAttribute("viewBox", "0 0 " + (screen.device_width || screen.width || 1) + " " +
        (screen.device_height || screen.height || 1));
      svg.setAttribute("preserveAspectRatio", "none");
      marks(svg, step, screen, moment);
      box.appendChild(svg);
    } else {
      box.appendChild(el("div", "missing", screen ? screen.missing : "not captured"));
    }
    figure.appendChild(box);
    figure.appendChild(el("figcaption", "", moment));
    return figure;
  }

  function section(title, text, cls) {
    const part = el("section", cls);
    part.appendChild(el("h3", "", title));
    part.appendChild(el("pre", "", text));
    return part;
  }

  function detail(step) {
    const main = document.getElementById("detail");
    main.replaceChildren();
    main.dataset.index = String(step.index);
    const head = el("h2", "", "#" + step.index + " " + step.tool + " ");
    const outcome = el("span", failed(step) ? "outcome-bad" : "outcome-ok",
      (step.crash ? "app crashed" : step.outcome) + " \\u00b7 " + ms(step.duration_ms));
    head.appendChild(outcome);
    main.appendChild(head);
    const facts = [];
    if (step.device) facts.push("device " + step.device);
    if (step.started) facts.push("started " + step.started);
    if (typeof step.trace_ms === "number") facts.push("tracing " + ms(step.trace_ms));
    main.appendChild(el("div", "facts", facts.join(" \\u00b7 ")));
    if (step.summary && !step.error) main.appendChild(el("p", "summary", step.summary));
    if (step.error) {
      const e = step.error;
      main.appendChild(el("div", "error", (e.code || "error") + ": " + (e.message || "") +
        (e.next_action ? "\\nnext: " + e.next_action : "")));
    }
    const s = step.screens || {};
    if (s.before || s.after) {
      const screens = el("div", "screens");
      screens.appendChild(screenView(step, "before"));
      screens.appendChild(screenView(step, "after"));
      main.appendChild(screens);
    }
    if (step.target && step.target.element) {
      main.appendChild(section("element", step.target.element, "element"));
    }
    main.appendChild(section("arguments", pretty(step.arguments || {}), "arguments"));
    if (step.error) {
      main.appendChild(section("error details", pretty(step.error.details || {}), "details"));
    }
    if (step.result) main.appendChild(section("result", pretty(step.result), "result"));
    if (step.log) main.appendChild(section("log", step.log.join("\\n"), "log"));
    if (step.text) main.appendChild(section("sent as text", step.text, "text"));
    if (step.tree) {
      const tree = el("details", "tree");
      tree.appendChild(el("summary", "", "UI tree"));
      tree.appendChild(el("pre", "", step.tree));
      main.appendChild(tree);
    }
  }

  function select(i) {
    if (i < 0 || i >= steps.length) return;
    const tiles = document.querySelectorAll("#filmstrip .step");
    if (selected >= 0) {
      tiles[selected].classList.remove("selected");
      tiles[selected].removeAttribute("aria-current");
    }
    selected = i;
    tiles[i].classList.add("selected");
    tiles[i].setAttribute("aria-current", "step");
    tiles[i].scrollIntoView({ block: "nearest", inline: "nearest" });
    detail(steps[i]);
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    let next = null;
    if (event.key === "ArrowRight" || event.key === "j") next = selected + 1;
    else if (event.key === "ArrowLeft" || event.key === "k") next = selected - 1;
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = steps.length - 1;
    else if (event.key === "f") {
      for (let k = 1; k <= steps.length; k++) {
        const j = (selected + k) % steps.length;
        if (failed(steps[j])) { next = j; break; }
      }
    }
    if (next !== null && next >= 0 && next < steps.length) { event.preventDefault(); select(next); }
  });

  summary();
  filmstrip();
  if (steps.length) {
    const firstBad = steps.findIndex(failed);
    select(firstBad >= 0 ? firstBad : 0);
  } else {
    document.getElementById("detail").appendChild(el("p", "", "This trace has no steps."));
  }
  document.body.dataset.ready = "true";
})();
"""
