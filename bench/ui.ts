/**
 * @module bench/ui
 * Figures of spurrestd's cluster page (/ui), one JSON object per line {metric, value, unit,
 * conditions}: the weight of its three files (raw and gzip bytes), and in Debian's headless
 * chromium (tests/e2e/cdp.ts) the time to first render (the page's `spur-first-render` mark,
 * from navigation start) and to the queue view, the view's size and its server-side build
 * time, for
 *  - the demo-size cluster: `spur up` with the demo's shape (4 nodes, 4 CPUs each) and a few
 *    jobs, through the real spurrestd (needs dist/spur: bun run build);
 *  - a synthetic 10k nodes × 8 GPUs and 100k jobs: the same page and routes (createRestApp)
 *    in this process over a FAKE controller that answers ListNodes/ListJobs from generated
 *    data (no spurctld); the conditions say so.
 * Screenshots of both pages go to artifacts/ui/bench-*.png.
 * Usage: bun bench/ui.ts [--nodes 10000] [--jobs 100000] [--skip-cluster]
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { PAGE_CSS, PAGE_HTML, PAGE_JS } from "../src/net/rest/ui/assets.ts";
import { createRestApp } from "../src/net/rest/app.ts";
import type { ControllerPort } from "../src/net/ctl-port.ts";
import { emptyJobInfo, emptyNodeInfo } from "../src/sched/model/records.ts";
import { declaredLinks, topologyFromLinks } from "../src/devices/gpu-topology.ts";
import { launch, chromiumPath } from "../tests/e2e/cdp.ts";

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => Number(args[args.indexOf(name) + 1] ?? 0) || dflt;
const NODES = arg("--nodes", 10_000);
const JOBS = arg("--jobs", 100_000);
const BIN = resolve(import.meta.dir, "../dist/spur");
/** Screenshots of what was measured (git-ignored). */
const ARTIFACTS = resolve(import.meta.dir, "../artifacts/ui");

function emit(metric: string, value: number, unit: string, conditions: Record<string, unknown>): void {
  // the machine's load at the time: the render figures are wall-clock times on shared cores
  const machine = `${cpus().length} cores, load ${loadavg()[0]?.toFixed(1)}`;
  console.log(JSON.stringify({ metric, value: Number(value.toFixed(2)), unit, conditions: { system: "spur", machine, ...conditions } }));
}

function weights(): void {
  const files = { "page.html": PAGE_HTML, "page.css": PAGE_CSS, "page.js": PAGE_JS };
  let raw = 0;
  let gz = 0;
  for (const [name, text] of Object.entries(files)) {
    const r = Buffer.byteLength(text);
    const g = gzipSync(text, { level: 9 }).length;
    raw += r;
    gz += g;
    emit(`ui_${name.replace(".", "_")}_bytes`, r, "bytes", { file: name, encoding: "identity" });
    emit(`ui_${name.replace(".", "_")}_gzip_bytes`, g, "bytes", { file: name, encoding: "gzip -9" });
  }
  emit("ui_page_total_bytes", raw, "bytes", { files: 3, encoding: "identity" });
  emit("ui_page_total_gzip_bytes", gz, "bytes", { files: 3, encoding: "gzip -9, each file" });
}

/** Opens `pageUrl` in a fresh headless chromium; first render and queue times, view size and build time. */
async function measure(base: string, pageUrl: string, headers: Record<string, string>, conditions: Record<string, unknown>, shotName: string): Promise<void> {
  let buildMs = 0;
  for (const [path, name] of [["/ui/api/view", "ui_view"], ["/ui/api/jobs", "ui_jobs"]] as const) {
    const res = await fetch(`${base}${path}`, { headers });
    const json = await res.text();
    buildMs = Number(res.headers.get("x-spur-view-build-ms") ?? "0");
    const what = path.endsWith("view") ? "nodes part (drawn first)" : "queue part (fetched next)";
    emit(`${name}_bytes`, Buffer.byteLength(json), "bytes", { ...conditions, what, encoding: "identity" });
    emit(`${name}_gzip_bytes`, gzipSync(json, { level: 4 }).length, "bytes", { ...conditions, what, encoding: "gzip -4 (as served)" });
  }
  emit("ui_view_build_ms", buildMs, "ms", { ...conditions, what: "controller calls + view + JSON of both parts, once per poll per user" });
  const browser = await launch({ width: 1280, height: 900 });
  try {
    const { page } = browser;
    await page.navigate(pageUrl);
    const first = await page.waitFor<number>("first render", `performance.getEntriesByName("spur-first-render")[0]?.startTime`, 120_000);
    const queued = await page.waitFor<number>("queue rows loaded", `performance.getEntriesByName("spur-queue-loaded")[0]?.startTime`, 120_000);
    emit("ui_queue_loaded_ms", queued, "ms", { ...conditions, browser: browser.version, from: "navigation start to the queue's rows loaded (after the grid)" });
    emit("ui_first_render_ms", first, "ms", { ...conditions, browser: browser.version, from: "navigation start (incl. the ?token= redirect) to nodes drawn" });
    const poll = JSON.parse(await page.evaluate<string>(`document.documentElement.dataset.pollMs`)) as Record<string, number>;
    for (const [part, ms] of Object.entries(poll)) emit(`ui_first_poll_${part}_ms`, ms, "ms", { ...conditions, browser: browser.version, what: "the first view's fetch, JSON.parse, and index + draw in the page" });
    const timing = await page.evaluate<{ wait: number; download: number }>(`(() => { const e = performance.getEntriesByType("resource").find((r) => r.name.endsWith("/ui/api/view"));
      return { wait: e.responseStart - e.requestStart, download: e.responseEnd - e.responseStart }; })()`);
    emit("ui_first_view_server_wait_ms", timing.wait, "ms", { ...conditions, what: "request sent to first byte: the server's build (or its cache), gzip" });
    emit("ui_first_view_download_ms", timing.download, "ms", { ...conditions, what: "first byte to last byte of the view" });
    // the rest is measured with polling paused, so that a poll's parse does not land inside a measured frame
    await page.evaluate(`document.getElementById("pause").click()`);
    const t = await page.evaluate<number>(`new Promise((done) => { const t0 = performance.now(); location.hash = "#queue";
      const wait = () => document.querySelector("#queue tbody tr[data-job]") ? done(performance.now() - t0) : requestAnimationFrame(wait); wait(); })`);
    emit("ui_queue_switch_ms", t, "ms", { ...conditions, browser: browser.version });
    const scroll = await page.evaluate<number>(`new Promise((done) => { location.hash = "#nodes"; requestAnimationFrame(() => {
      const g = document.getElementById("grid"); const t0 = performance.now(); g.scrollTop = g.scrollHeight / 2;
      requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0))); }); })`);
    emit("ui_grid_scroll_frame_ms", scroll, "ms", { ...conditions, browser: browser.version, what: "scroll to the middle of the node grid until drawn (two frames)" });
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot(join(ARTIFACTS, `bench-${shotName}-nodes.png`));
    await page.evaluate(`location.hash = "#queue"`);
    await page.waitFor("queue drawn", `document.querySelector("#queue tbody tr[data-job]")`);
    await page.screenshot(join(ARTIFACTS, `bench-${shotName}-queue.png`));
    await page.evaluate(`location.hash = "#nodes"`);
    const nodesShown = await page.waitFor<number>("tiles", `document.querySelectorAll(".tile").length`);
    emit("ui_tiles_in_dom", nodesShown, "count", { ...conditions, what: "node tiles in the DOM (virtualised)" });
  } finally {
    await browser.close();
  }
}

async function demoCluster(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "spur-bench-ui-"));
  const state = join(dir, "cluster");
  const up = spawnSync(BIN, ["up", "--detach", "--state-dir", state], { encoding: "utf8" });
  if (up.status !== 0) throw new Error(`spur up failed: ${up.stderr}`);
  const conf = join(state, "spur.conf");
  const env = { ...process.env, SPUR_CONF: conf };
  try {
    for (let i = 0; i < 6; i++) spawnSync(BIN, ["sbatch", "-n", "2", "--wrap", "sleep 120"], { env, cwd: dir, encoding: "utf8" });
    const token = /SLURM_JWT=(\S+)/.exec(spawnSync(BIN, ["scontrol", "token"], { env, encoding: "utf8" }).stdout)?.[1] ?? "";
    const base = `http://127.0.0.1:${/^RestPort=(\d+)/m.exec(readFileSync(conf, "utf8"))?.[1]}`;
    await new Promise((r) => setTimeout(r, 2000));
    await measure(base, `${base}/ui?token=${token}`, { "x-slurm-user-token": token }, { cluster: "spur up (demo shape): 4 nodes x 4 CPUs, 6 jobs", source: "real spurctld + spurrestd" }, "demo");
  } finally {
    spawnSync(BIN, ["down", "--state-dir", state]);
  }
}

/** 10k nodes in 8-GPU XGMI hives of 4; the jobs: 2-GPU jobs running until the GPUs are full, the rest pending. */
export function syntheticPort(nodeCount: number, jobCount: number): ControllerPort {
  const topology = topologyFromLinks(declaredLinks("hives:4", 8) as number[][]);
  const nodes = Array.from({ length: nodeCount }, (_, i) => ({
    ...emptyNodeInfo(`gpu${String(i + 1).padStart(5, "0")}`), state: "MIXED", cpus: 128, allocCpus: 64, realMemoryMib: 1_048_576, allocMemoryMib: 524_288,
    gpuCount: 8, gpuModel: "mi300x", gpuTopology: topology, partitions: ["gpu"], cpuLoad: 40,
  }));
  const runningMax = nodeCount * 4;
  const jobs = Array.from({ length: jobCount }, (_, i) => {
    const jobId = i + 1;
    const running = i < runningMax;
    const node = nodes[Math.floor(i / 4)]?.name ?? "";
    return {
      ...emptyJobInfo(), jobId, name: `job${jobId}`, user: `user${i % 500}`, account: `acct${i % 40}`, partition: "gpu", state: running ? "RUNNING" : "PENDING",
      reason: running ? "None" : i % 3 === 0 ? "Priority" : "Resources", priority: 1_000_000 - i, submitTime: 1_800_000_000 - i, startTime: running ? 1_800_000_000 : 1_800_003_600 + i,
      numCpus: 16, numNodes: 1, nodelist: running ? node : "", timeLimitMin: 240, tresReq: "cpu=16,mem=64G,node=1,gres/gpu=2",
      alloc: running ? [{ node, cpus: 16, memMib: 65_536, gpuIndices: [(i % 4) * 2, (i % 4) * 2 + 1], tasks: 1 }] : [],
    };
  });
  // through JSON as the real port's answers come (objects of one shape, as the engine likes them)
  const wire = JSON.parse(JSON.stringify({ nodes, jobs })) as { nodes: typeof nodes; jobs: typeof jobs };
  const fail = () => Promise.reject(new Error("not in the synthetic controller"));
  return {
    listNodes: async () => ({ nodes: wire.nodes, partitions: [{ name: "gpu", nodes: `gpu[00001-${String(nodeCount).padStart(5, "0")}]`, isDefault: true, state: "UP", minNodes: 0, priorityTier: 1, priorityJobFactor: 1, totalCpus: nodeCount * 128, totalNodes: nodeCount, tres: "", oversubscribe: "NO", rootOnly: false, allowGroups: "ALL", allowAccounts: "ALL", allowQos: "ALL", hidden: false, graceTimeSec: 0 }], now: 1_800_000_100, licenses: [], downSpans: [] }),
    listJobs: async () => ({ jobs: wire.jobs, now: 1_800_000_100, clusterName: "synthetic" }),
    submit: fail, cancel: fail, updateJob: fail, updateNode: fail, ping: fail, getConfig: fail, waitJob: fail,
  };
}

async function synthetic(): Promise<void> {
  const port = syntheticPort(NODES, JOBS);
  const caller = { user: "admin", uid: 0, group: "root", token: "" };
  const app = createRestApp({
    auth: { authenticate: async () => caller, authenticateLocal: async () => caller },
    controllerFor: () => port,
    host: { cluster: "synthetic", hostname: "bench", homeOf: () => "/tmp", operators: () => [], controller: { host: "127.0.0.1", port: 0 } },
    nowSec: () => Date.now() / 1000,
    rateLimit: { perSec: 0, burst: 0 },
  });
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    await measure(base, `${base}/ui`, {}, { cluster: `synthetic ${NODES} nodes x 8 GPUs, ${JOBS} jobs`, source: "FAKE controller port in the bench process (generated ListNodes/ListJobs); real /ui routes, view builder and page" }, "synthetic");
  } finally {
    await server.stop(true);
  }
}

if (import.meta.main) await main();

async function main(): Promise<void> {
weights();
if (chromiumPath() === undefined) {
  console.error("bench/ui: chromium not found (apt-get install -y --no-install-recommends chromium): render figures skipped");
} else {
  if (!args.includes("--skip-cluster")) await demoCluster();
  await synthetic();
}
}
