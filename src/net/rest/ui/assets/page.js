// Spur's cluster page (served by spurrestd at /ui/page.js; see docs/ui.md).
// Plain browser JavaScript, no library, nothing fetched but /ui/api/*: polls the cluster
// view every POLL_MS and draws only what is on screen (node tiles and queue rows are
// virtualised), so 10k nodes and 100k jobs stay fast. Row layouts: rest/ui/view.ts.
"use strict";
(() => {
  const POLL_MS = 2000;
  const TILE_W = 204, TILE_H = 100, ROW_H = 26;
  // node row and job row columns (rest/ui/view.ts NODE_COLUMNS, JOB_COLUMNS)
  const N = { name: 0, state: 1, cpus: 2, allocCpus: 3, mem: 4, allocMem: 5, model: 6, gpuJobs: 7, groups: 8, reason: 9 };
  const J = { id: 0, state: 1, user: 2, account: 3, name: 4, partition: 5, reason: 6, nodes: 7, cpus: 8, gpus: 9, start: 10, prio: 11, jobId: 12 };
  const S = { view: null, queue: [], etags: {}, timing: {}, route: "nodes", jobId: "", paused: false, timer: 0, nodes: [], jobs: [], jobText: "", rendered: false };
  const $ = (id) => document.getElementById(id);

  /** Element with attributes (className, on*, style objects are set as properties) and children. */
  function h(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k === "style") Object.assign(e.style, v);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }
  // 34% lightness keeps every hue at 3:1 or more against the white tile (WCAG non-text contrast)
  const colour = (id) => `hsl(${Math.round((id * 137.508) % 360)} 68% 34%)`;
  const pad = (n) => String(n).padStart(2, "0");
  function when(t) {
    if (!(t > 0)) return "-";
    const d = new Date(t * 1000), now = new Date();
    const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
    return d.toDateString() === now.toDateString() ? hm : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${hm}`;
  }
  // GiB with one decimal below 100, whole above (a 1 TiB node stays short enough for its tile)
  const num = (mib) => (mib >= 102400 ? String(Math.round(mib / 1024)) : (mib / 1024).toFixed(1));
  const gib = (mib) => `${num(mib)} GiB`;
  const limitText = (m) => (m < 0 ? "UNLIMITED" : m >= 1440 ? `${Math.floor(m / 1440)}-${pad(Math.floor((m % 1440) / 60))}:${pad(m % 60)}:00` : `${pad(Math.floor(m / 60))}:${pad(m % 60)}:00`);

  async function getJson(url) {
    const r = await fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } });
    const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
    if (!r.ok) throw Object.assign(new Error(body.error || `HTTP ${r.status}`), { status: r.status });
    return body;
  }
  function say(text, isError) {
    $("status").textContent = isError ? "" : text;
    $("alert").textContent = isError ? text : "";
  }

  // ---- routing (#nodes, #queue, #partitions, #shares, #job/ID) ----
  function route() {
    const m = /^#job\/(\d+)$/.exec(location.hash);
    S.route = m ? "job" : (location.hash.slice(1) || "nodes");
    if (!["nodes", "queue", "partitions", "shares", "job"].includes(S.route)) S.route = "nodes";
    if (m && m[1] !== S.jobId) { S.jobId = m[1]; S.jobText = ""; $("job").replaceChildren(h("p", { text: "Loading…" })); }
    for (const s of document.querySelectorAll("main > section")) s.hidden = s.id !== `view-${S.route}`;
    for (const a of document.querySelectorAll("nav a")) {
      if (a.getAttribute("href") === `#${S.route}`) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    draw();
    poll();
  }

  // ---- data ----
  /** One poll at a time: asked while one runs (a click, a new route), it runs again right after, never beside it. */
  async function poll() {
    clearTimeout(S.timer);
    if (S.busy) { S.again = true; return; }
    S.busy = true;
    if (!S.paused && !document.hidden) {
      try {
        if (S.route === "job") await loadJob();
        else await loadView();
        if (!S.paused) say(`Updated ${when(Date.now() / 1000)}`);
      } catch (e) {
        say(`Update failed: ${e.message}`, true);
        if (e.status === 401) signIn(e.message);
      }
    }
    S.busy = false;
    if (S.again) { S.again = false; poll(); return; }
    S.timer = setTimeout(poll, POLL_MS);
  }
  function signIn(why) {
    $("main").replaceChildren(h("h2", { text: "Not signed in" }), h("p", { text: `${why}. Open this page as /ui?token=TOKEN, with a token from "scontrol token" (or through spurrestd's Unix socket).` }));
  }
  /** One part of the view; null when unchanged since the last poll (304: no download, no parse). */
  async function getPart(path, key) {
    const t0 = performance.now();
    const r = await fetch(path, { credentials: "same-origin", headers: S.etags[key] ? { "if-none-match": S.etags[key] } : {} });
    if (r.status === 304) return null;
    const text = await r.text();
    const t1 = performance.now();
    let v;
    try { v = JSON.parse(text); } catch { v = { error: `HTTP ${r.status}` }; }
    if (!r.ok) throw Object.assign(new Error(v.error || `HTTP ${r.status}`), { status: r.status });
    S.etags[key] = r.headers.get("etag") || "";
    S.timing = { fetch: Math.round(t1 - t0), parse: Math.round(performance.now() - t1) };
    return v;
  }
  /** The nodes part first (the grid is drawn from it), then the queue's rows. */
  async function loadView() {
    const v = await getPart("/ui/api/view", "view");
    if (v) {
      const timing = S.timing, t0 = performance.now();
      decodeNodes(v);
      S.view = v;
      $("cluster").textContent = v.cluster;
      $("who").textContent = `signed in as ${v.user}`;
      const t = v.totals;
      $("totals").textContent = `${t.nodes} nodes · GPUs ${t.gpusAllocated}/${t.gpus} in use · CPUs ${t.cpusAllocated}/${t.cpus} in use · ${t.running} running, ${t.pending} pending jobs`;
      filterNodes();
      if (S.route !== "queue") draw();
      // for bench/ui.ts: where the view's time goes (fetch, JSON.parse, decode and draw)
      document.documentElement.dataset.pollMs = JSON.stringify({ ...timing, draw: Math.round(performance.now() - t0) });
      if (!S.rendered) { S.rendered = true; performance.mark("spur-first-render"); }
    }
    const q = await getPart("/ui/api/jobs", "jobs");
    if (q) {
      decodeJobs(q);
      S.queue = q.jobs;
      filterJobs();
      if (S.route === "queue") drawQueue();
      if (!S.queued) { S.queued = true; performance.mark("spur-queue-loaded"); }
    }
  }
  /** Strings written once by the server (view.ts `strings`, `groupSets`) back into the rows. */
  function decodeNodes(v) {
    const str = v.strings;
    for (const n of v.nodes) { n[N.state] = str[n[N.state]]; n[N.model] = str[n[N.model]]; n[N.groups] = v.groupSets[n[N.groups]]; }
    for (const [id, label] of Object.entries(v.holders)) v.holders[id] = [label[0] || id, str[label[1]]];
  }
  function decodeJobs(q) {
    const str = q.strings;
    for (const j of q.jobs) {
      if (j[J.id] === "") j[J.id] = String(j[J.jobId]);
      j[J.state] = str[j[J.state]]; j[J.user] = str[j[J.user]]; j[J.account] = str[j[J.account]]; j[J.partition] = str[j[J.partition]]; j[J.reason] = str[j[J.reason]];
    }
  }
  function filterNodes() {
    const f = $("node-filter").value.trim().toLowerCase();
    const all = S.view ? S.view.nodes : [];
    S.nodes = f === "" ? all : all.filter((n) => n[N.name].toLowerCase().includes(f) || n[N.state].toLowerCase().includes(f) || n[N.gpuJobs].some((id) => String(id) === f));
  }
  function filterJobs() {
    const f = $("queue-filter").value.trim().toLowerCase(), st = $("queue-state").value;
    const all = S.queue;
    S.jobs = all.filter((j) => (st === "all" || j[J.state].split(",")[0] === st) &&
      (f === "" || [j[J.id], j[J.user], j[J.name], j[J.partition], j[J.reason], j[J.account]].some((x) => String(x).toLowerCase().includes(f))));
    $("queue-count").textContent = `${S.jobs.length} jobs`;
  }

  function draw() {
    if (!S.view && S.route !== "job") return;
    if (S.route === "nodes") drawNodes();
    else if (S.route === "queue") drawQueue();
    else if (S.route === "partitions") drawPartitions();
    else if (S.route === "shares") drawShares();
  }

  // ---- nodes: a virtualised grid of tiles ----
  function keepFocus(container, fn) {
    const key = container.contains(document.activeElement) ? document.activeElement.dataset.key : undefined;
    fn();
    if (key) { const again = container.querySelector(`[data-key="${CSS.escape(key)}"]`); if (again) again.focus(); }
  }
  function drawNodes() {
    const grid = $("grid"), spacer = $("grid-spacer");
    const cols = Math.max(1, Math.floor((grid.clientWidth - 8) / TILE_W));
    S.tileW = Math.floor((grid.clientWidth - 8) / cols); // tiles stretch to fill the row
    const rows = Math.ceil(S.nodes.length / cols);
    spacer.style.height = `${rows * TILE_H + 8}px`;
    const first = Math.max(0, Math.floor(grid.scrollTop / TILE_H) - 1);
    const last = Math.min(rows, Math.ceil((grid.scrollTop + grid.clientHeight) / TILE_H) + 1);
    const tiles = [];
    for (let i = first * cols; i < Math.min(S.nodes.length, last * cols); i++) tiles.push(tile(S.nodes[i], i, cols));
    grid.setAttribute("aria-label", `Nodes: ${S.nodes.length}, showing ${first * cols + 1} to ${Math.min(S.nodes.length, last * cols)}`);
    keepFocus(grid, () => grid.replaceChildren(spacer, ...tiles));
  }
  function tile(n, i, cols) {
    const state = n[N.state], gpus = n[N.gpuJobs], groups = n[N.groups];
    const used = gpus.filter((id) => id !== 0).length;
    const cls = /DOWN|FAIL|NOT_RESPONDING/.test(state) ? "tile down" : /DRAIN/.test(state) ? "tile drain" : "tile";
    const box = h("div", { class: "gpus" });
    const byGroup = new Map();
    gpus.forEach((id, g) => {
      const key = groups.length > 0 ? groups[g] : -1;
      if (!byGroup.has(key)) byGroup.set(key, h("span", { class: groups.length > 0 ? "grp" : "grp nolink", title: groups.length > 0 ? "GPUs linked by XGMI/NVLink" : undefined }));
      const job = S.view.holders[id];
      const label = id === 0 ? `GPU ${g} of ${n[N.name]}: free` : `GPU ${g} of ${n[N.name]}: job ${job ? job[0] : id}${job ? ` (${job[1]})` : ""}`;
      byGroup.get(key).append(id === 0
        ? h("span", { class: "gpu", role: "img", "aria-label": label, title: label })
        : h("a", { class: "gpu", href: `#job/${id}`, "aria-label": label, title: label, "data-key": `${n[N.name]}/${g}`, "data-job": id, style: { background: colour(id) } }));
    });
    box.append(...byGroup.values());
    const cpuPct = n[N.cpus] > 0 ? (100 * n[N.allocCpus]) / n[N.cpus] : 0;
    return h("div", {
      class: cls, role: "listitem", "data-node": n[N.name],
      "aria-label": `${n[N.name]}, ${state}, ${n[N.allocCpus]} of ${n[N.cpus]} CPUs, ${used} of ${gpus.length} GPUs in use${n[N.reason] ? `, reason: ${n[N.reason]}` : ""}`,
      style: { left: `${4 + (i % cols) * S.tileW}px`, top: `${4 + Math.floor(i / cols) * TILE_H}px`, width: `${S.tileW - 8}px` },
    },
    h("h3", {}, n[N.name], h("span", { class: "st", text: state })),
    h("div", { class: "bar", title: `CPUs ${n[N.allocCpus]}/${n[N.cpus]}` }, h("i", { style: { width: `${cpuPct}%` } })),
    gpus.length > 0 ? box : null,
    h("div", { class: "sub", text: `${n[N.allocCpus]}/${n[N.cpus]} CPUs · ${num(n[N.allocMem])}/${gib(n[N.mem])}` }),
    h("div", { class: "sub", text: [n[N.model] && `${gpus.length}× ${n[N.model]}`, n[N.reason]].filter(Boolean).join(" · ") }));
  }

  // ---- queue: a virtualised table ----
  function drawQueue() {
    const scroll = $("queue-scroll"), body = $("queue").tBodies[0];
    const first = Math.max(0, Math.floor(scroll.scrollTop / ROW_H) - 2);
    const count = Math.ceil(scroll.clientHeight / ROW_H) + 4;
    const last = Math.min(S.jobs.length, first + count);
    $("queue").setAttribute("aria-rowcount", String(S.jobs.length + 1));
    const rows = [spacerRow(first * ROW_H)];
    for (let i = first; i < last; i++) rows.push(jobRow(S.jobs[i], i));
    rows.push(spacerRow((S.jobs.length - last) * ROW_H));
    keepFocus(body, () => body.replaceChildren(...rows));
  }
  const spacerRow = (px) => h("tr", { "aria-hidden": "true", style: { height: `${px}px` } }, h("td", { colspan: 11, style: { padding: 0, border: 0 } }));
  function jobRow(j, i) {
    const st = j[J.state].split(",")[0];
    const pending = st === "PENDING";
    return h("tr", { "aria-rowindex": i + 2, "data-job": j[J.jobId] },
      h("td", {}, h("a", { href: `#job/${j[J.jobId]}`, text: j[J.id], "data-key": `q${j[J.jobId]}` })),
      h("td", { text: j[J.user] }), h("td", { text: j[J.name] }), h("td", { text: j[J.partition] }),
      h("td", { text: j[J.state], class: pending ? "pending" : undefined }),
      h("td", { text: pending ? j[J.reason] : "" }),
      h("td", { text: when(j[J.start]) }), h("td", { class: "num", text: j[J.prio] }),
      h("td", { class: "num", text: j[J.cpus] }), h("td", { class: "num", text: j[J.gpus] }), h("td", { text: j[J.nodes] }));
  }

  // ---- small tables ----
  const cells = (values) => h("tr", {}, ...values.map((v) => h("td", { text: v })));
  function drawPartitions() {
    const v = S.view;
    $("partitions").tBodies[0].replaceChildren(...v.partitions.map((p) => cells([p.name + (p.isDefault ? "*" : ""), p.state, p.totalNodes, p.nodes, p.totalCpus, limitText(p.maxTimeMin)])));
    const rs = v.reservations.length > 0 ? v.reservations.map((r) => cells([r.name, r.state, when(r.start), when(r.end), r.nodes, r.users, r.accounts, r.flags])) : [h("tr", {}, h("td", { colspan: 8, text: "No reservations" }))];
    $("reservations").tBodies[0].replaceChildren(...rs);
  }
  function drawShares() {
    const rows = S.view.shares.map((s) => {
      const tr = cells([s.user === "" ? s.account : "", s.user, s.rawShares, s.normShares.toFixed(6), s.rawUsage, s.effectiveUsage.toFixed(6), s.user === "" && s.depth === 0 ? "" : s.fairshare.toFixed(6)]);
      tr.firstChild.style.paddingLeft = `${8 + 14 * s.depth}px`;
      return tr;
    });
    $("shares").tBodies[0].replaceChildren(...(rows.length > 0 ? rows : [h("tr", {}, h("td", { colspan: 7, text: "No fair-share data (no associations)" }))]));
  }

  // ---- one job ----
  async function loadJob() {
    let d;
    try {
      d = await getJson(`/ui/api/job/${S.jobId}`);
    } catch (e) {
      if (e.status === 404) { $("h-job").textContent = `Job ${S.jobId}`; $("job").replaceChildren(h("p", { class: "error", text: e.message })); return; }
      throw e;
    }
    $("cluster").textContent = d.cluster;
    $("who").textContent = `signed in as ${d.user}`;
    const text = JSON.stringify(d);
    if (text === S.jobText) return;
    S.jobText = text;
    $("h-job").textContent = `Job ${d.id}`;
    keepFocus($("job"), () => $("job").replaceChildren(jobView(d)));
  }
  function meter(label, pct) {
    return h("p", {}, h("span", { class: "meter", role: "img", "aria-label": `${label} ${pct}%` }, h("i", { style: { width: `${Math.min(100, pct)}%` } })), `${label}: ${pct}%`);
  }
  function jobView(d) {
    const e = d.efficiency;
    const dl = h("dl", {});
    for (const [k, v] of d.fields) dl.append(h("dt", { text: k }), h("dd", { text: v }));
    if (d.gpus.length > 0) dl.append(h("dt", { text: "GPUs" }), h("dd", { text: d.gpus.map((g) => `${g.node}: ${g.indices.join(",")}`).join("; ") }));
    const steps = h("table", {}, h("caption", { class: "sr", text: "Steps" }),
      h("thead", {}, h("tr", {}, ...["Step", "Name", "State", "Nodes", "Tasks", "CPUs", "Start", "End", "CPU time (s)", "MaxRSS (MiB)"].map((t) => h("th", { scope: "col", text: t })))),
      h("tbody", {}, ...(d.steps.length > 0 ? d.steps.map((s) => cells([s.id, s.name, s.state, s.nodes, s.ntasks, s.cpus, when(s.start), when(s.end), s.measured ? (s.userCpuSec + s.systemCpuSec).toFixed(1) : "-", s.measured ? (s.maxRssKib / 1024).toFixed(1) : "-"])) : [h("tr", {}, h("td", { colspan: 10, text: "No steps recorded" }))])));
    const script = d.script !== undefined
      ? h("pre", { tabindex: 0, "aria-label": "Batch script", text: d.script })
      : h("p", { class: "refused", text: `Script not shown: ${d.scriptRefused}` });
    return h("div", {},
      h("div", { class: "cols" },
        h("section", { "aria-label": "Resources" }, h("h3", { text: "Resources" }), dl),
        h("section", { "aria-label": "Efficiency" }, h("h3", { text: "Efficiency" }),
          meter("CPU efficiency", e.cpuPercent), h("p", { class: "sub", text: `${Math.round(e.cpuSec)} s of CPU over ${Math.round(e.wallSec)} s × ${e.cpus} CPUs (finished steps)` }),
          meter("Memory efficiency", e.memPercent), h("p", { class: "sub", text: `${(e.memKib / 1024).toFixed(1)} MiB of ${(e.allocMemKib / 1024).toFixed(1)} MiB` }),
          h("h3", { text: "Usage over time" }), graph(d.samples))),
      h("h3", { text: "Steps" }), steps,
      h("h3", { text: "Script" }), script);
  }
  /** The load of the job's nodes per CPU it holds and their memory in use, in %, as two lines (node figures: heartbeats). */
  function graph(samples) {
    if (samples.length < 2) return h("p", { class: "sub", text: "Samples are taken every poll while this page shows a running job." });
    const W = 320, H = 120, t0 = samples[0].t, t1 = samples[samples.length - 1].t || t0 + 1;
    const x = (t) => (((t - t0) / Math.max(1, t1 - t0)) * (W - 30) + 28).toFixed(1);
    const y = (p) => (H - 14 - Math.min(100, p) * ((H - 24) / 100)).toFixed(1);
    const line = (f) => samples.map((s, i) => `${i === 0 ? "M" : "L"}${x(s.t)},${y(f(s))}`).join(" ");
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`); svg.setAttribute("width", W); svg.setAttribute("height", H); svg.setAttribute("role", "img");
    const last = samples[samples.length - 1];
    const cpu = last.cpus > 0 ? Math.round((100 * last.load) / last.cpus) : 0, mem = last.memTotalMiB > 0 ? Math.round((100 * last.memUsedMiB) / last.memTotalMiB) : 0;
    svg.setAttribute("aria-label", `Usage over ${Math.round(t1 - t0)} s: load of its nodes ${cpu}% of its CPUs, memory in use on its nodes ${mem}% now`);
    const add = (tag, attrs, text) => { const e = document.createElementNS(ns, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); if (text) e.textContent = text; svg.append(e); };
    add("path", { class: "load", d: line((s) => (s.cpus > 0 ? (100 * s.load) / s.cpus : 0)) });
    add("path", { class: "mem", d: line((s) => (s.memTotalMiB > 0 ? (100 * s.memUsedMiB) / s.memTotalMiB : 0)) });
    add("text", { x: 2, y: 12 }, "100%"); add("text", { x: 2, y: H - 14 }, "0%");
    add("text", { x: 30, y: H - 2 }, "— node load / job CPUs"); add("text", { x: 175, y: H - 2 }, "— node memory in use");
    return svg;
  }

  // ---- wiring ----
  function init() {
    addEventListener("hashchange", route);
    $("grid").addEventListener("scroll", () => requestAnimationFrame(drawNodes), { passive: true });
    $("queue-scroll").addEventListener("scroll", () => requestAnimationFrame(drawQueue), { passive: true });
    addEventListener("resize", () => requestAnimationFrame(draw));
    $("node-filter").addEventListener("input", () => { filterNodes(); $("grid").scrollTop = 0; drawNodes(); });
    $("queue-filter").addEventListener("input", () => { filterJobs(); drawQueue(); });
    $("queue-state").addEventListener("change", () => { filterJobs(); drawQueue(); });
    $("pause").addEventListener("click", (ev) => {
      S.paused = !S.paused;
      // a toggle button keeps its name; its state is aria-pressed (and the status line says it)
      ev.currentTarget.setAttribute("aria-pressed", String(S.paused));
      if (S.paused) say("Updates paused");
      else poll();
    });
    document.addEventListener("visibilitychange", () => { if (!document.hidden) poll(); });
    route();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
