/**
 * End-to-end: spurrestd's /ui page in Debian's headless chromium, driven over the DevTools
 * protocol (tests/e2e/cdp.ts), on a `spur up` cluster of three 8-GPU nodes whose GPUs are
 * declared as two XGMI hives of 4. A GPU job runs, a larger one waits; the test looks at
 * what a person would see: the node tiles, the running job's colour on its GPU cells, the
 * hives, the waiting job's row with its reason, the job page with the script for its owner
 * and refused to another user, and that the page asked nothing of any other origin.
 * Screenshots go to artifacts/ui/. Skipped (with a message) only where chromium is absent
 * and CI is not set: in CI a missing browser fails the test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { startCluster, eventually, ensureUser, isRoot, type Cluster } from "./cluster.ts";
import { chromiumPath, launch, type Browser, type Page } from "./cdp.ts";

const OWNER = "spuruia";
const OTHER = "spuruib";
const ARTIFACTS = resolve(__dirname, "../../artifacts/ui");
const hasBrowser = chromiumPath() !== undefined;
const runs = hasBrowser || process.env.CI !== undefined;
if (!runs) console.warn("tests/e2e/ui.test.ts skipped: chromium is not installed (apt-get install -y --no-install-recommends chromium); CI runs it");
const multiUser = isRoot() && ensureUser(OWNER) && ensureUser(OTHER);

let c: Cluster;
let url = "";
let browser: Browser;
let page: Page;
let running = "";
let waiting = "";
const tokens: Record<string, string> = {};

const MARKER = "# spur-ui-e2e: this line must show on the job page";

function token(user: string | undefined): string {
  const r = c.run(["scontrol", "token", "lifespan=900"], user === undefined ? {} : { user });
  const m = /^SLURM_JWT=(\S+)$/m.exec(r.stdout);
  if (m?.[1] === undefined) throw new Error(`scontrol token failed: ${r.stderr}`);
  return m[1];
}
const squeue = (id: string, fmt: string) => c.run(["squeue", "-h", "-j", id, "-o", fmt]).stdout.trim();
const shot = (name: string) => page.screenshot(resolve(ARTIFACTS, `${name}.png`));
const show = async (hash: string, ready: string, what: string) => {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
  return page.waitFor(what, ready);
};

beforeAll(async () => {
  if (!runs) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  c = startCluster(["--nodes", "3", "--cpus-per-node", "4", "--mem-per-node", "4000", "--gpus-per-node", "8", "--gpu-model", "mi300x", "--gpu-topology", "hives:4"]);
  url = `http://127.0.0.1:${/^RestPort=(\d+)/m.exec(readFileSync(c.conf, "utf8"))?.[1]}`;
  const owner = multiUser ? OWNER : undefined;
  c.write("gpu-job.sh", `#!/bin/bash\n#SBATCH --job-name=ui-gpu\n#SBATCH -w n1\n#SBATCH --gpus-per-node=4\n#SBATCH --time=10\n${MARKER}\nsleep 300\n`);
  const sub = c.run(["sbatch", "--parsable", "gpu-job.sh"], owner === undefined ? {} : { user: owner });
  expect(sub.stderr).toBe("");
  running = sub.stdout.trim();
  await eventually(`job ${running} running`, () => (squeue(running, "%T") === "RUNNING" ? true : undefined), 60_000);
  // every GPU of all three nodes: cannot start while the first job holds four
  waiting = c.run(["sbatch", "--parsable", "-N3", "--gpus-per-node=8", "--job-name=ui-wait", "--wrap", "sleep 1"], owner === undefined ? {} : { user: owner }).stdout.trim();
  await eventually(`job ${waiting} has a pending reason`, () => (/^(Resources|Priority)$/.test(squeue(waiting, "%r")) ? true : undefined), 30_000);
  tokens.owner = token(owner);
  if (multiUser) tokens.other = token(OTHER);
  await eventually("spurrestd answering", () => (c.run(["scontrol", "ping"]).code === 0 ? true : undefined), 30_000);
  browser = await launch({ width: 1280, height: 900 });
  page = browser.page;
}, 180_000);

afterAll(async () => {
  if (c !== undefined) c.run(["scancel", running, waiting]);
  await browser?.close();
  c?.down();
});

describe.runIf(runs)("the /ui page in headless chromium", () => {
  it("signs in with ?token= once, then shows every node with its GPU cells", async () => {
    await page.navigate(`${url}/ui?token=${tokens.owner}`);
    expect(await page.evaluate("location.pathname + location.search")).toBe("/ui");
    const names = await page.waitFor<string[]>("node tiles", `document.querySelectorAll(".tile").length === 3 && [...document.querySelectorAll(".tile")].map((t) => t.dataset.node)`);
    expect(names).toEqual(["n1", "n2", "n3"]);
    // the running job holds 4 GPUs of n1, each a link to its page in its colour
    const cells = await page.waitFor<{ label: string; colour: string }[]>("GPU cells of the running job", `(() => {
      const cells = [...document.querySelectorAll('[data-node="n1"] a.gpu[data-job="${running}"]')];
      return cells.length === 4 && cells.map((a) => ({ label: a.getAttribute("aria-label"), colour: getComputedStyle(a).backgroundColor }));
    })()`);
    expect(cells[0]?.label).toMatch(new RegExp(`^GPU \\d of n1: job ${running} \\(`));
    expect(new Set(cells.map((x) => x.colour)).size).toBe(1);
    expect(await page.evaluate(`document.querySelectorAll('[data-node="n2"] .gpu').length`)).toBe(8);
    expect(await page.evaluate(`document.querySelectorAll('[data-node="n2"] a.gpu').length`)).toBe(0);
    // two XGMI hives of four: two linked groups on every node
    expect(await page.evaluate(`[...document.querySelectorAll(".tile")].map((t) => t.querySelectorAll(".grp:not(.nolink)").length)`)).toEqual([2, 2, 2]);
    expect(await page.evaluate(`document.getElementById("totals").textContent`)).toContain("GPUs 4/24 in use");
    await shot("nodes");
  });

  it("can be used from the keyboard, with a visible focus", async () => {
    await page.send("Input.dispatchKeyEvent", { type: "keyDown", key: "Tab", code: "Tab", windowsVirtualKeyCode: 9 });
    await page.send("Input.dispatchKeyEvent", { type: "keyUp", key: "Tab", code: "Tab", windowsVirtualKeyCode: 9 });
    const focused = await page.evaluate<{ text: string; outline: string }>(`(() => { const e = document.activeElement; return { text: e.textContent, outline: getComputedStyle(e).outlineStyle }; })()`);
    expect(focused).toEqual({ text: "Skip to content", outline: "solid" });
  });

  it("meets basic accessibility checks: text contrast, labelled controls, table headers", async () => {
    const problems = await page.evaluate<string[]>(`(() => {
      const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
      const bg = (e) => { for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor; if (!/rgba\\(.*, 0\\)$/.test(c) && c !== "transparent") return c; } return "rgb(255, 255, 255)"; };
      const out = [];
      for (const e of document.querySelectorAll("body *")) {
        if (!e.offsetParent || ![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== "")) continue;
        const a = lum(getComputedStyle(e).color), b = lum(bg(e));
        const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        if (ratio < 4.5) out.push(e.tagName + " " + e.textContent.trim().slice(0, 20) + " " + ratio.toFixed(2));
      }
      for (const i of document.querySelectorAll("input, select")) if (!document.querySelector('label[for="' + i.id + '"]')) out.push("unlabelled " + i.id);
      for (const th of document.querySelectorAll("thead th")) if (th.getAttribute("scope") !== "col") out.push("th without scope " + th.textContent);
      return out;
    })()`);
    expect(problems).toEqual([]);
  });

  it("updates without reloading: a job submitted now appears in the queue", async () => {
    await page.evaluate("window.sameDocument = true");
    const later = c.run(["sbatch", "--parsable", "-N3", "--gpus-per-node=8", "--job-name=ui-later", "--wrap", "sleep 1"], multiUser ? { user: OWNER } : {}).stdout.trim();
    await show("#queue", `document.querySelector('#queue tr[data-job="${later}"]')`, "the new job's row");
    expect(await page.evaluate("window.sameDocument")).toBe(true);
    c.run(["scancel", later]);
  });

  it("lists the waiting job in the queue with its reason and start estimate", async () => {
    const row = await show("#queue", `(() => { const r = document.querySelector('#queue tr[data-job="${waiting}"]'); return r && [...r.cells].map((td) => td.textContent); })()`, "queue row");
    const [id, , name, , state, reason, start] = row as string[];
    expect([id, name, state]).toEqual([waiting, "ui-wait", "PENDING"]);
    expect(reason).toBe(squeue(waiting, "%r"));
    // the estimate squeue --start gives (when the first job's 10 minutes end), as local time; each
    // scheduling pass plans again, so the two reads may be a second apart
    const expected = squeue(waiting, "%S");
    expect(expected).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    const secondOfDay = (hms: string) => hms.split(":").reduce((s, part) => s * 60 + Number(part), 0);
    expect(Math.abs(secondOfDay((start ?? "").slice(-8)) - secondOfDay(expected.slice(11)))).toBeLessThanOrEqual(2);
    expect(await page.evaluate(`document.querySelector('#queue tr[data-job="${running}"] td:nth-child(5)').textContent`)).toBe("RUNNING");
    await shot("queue");
  });

  it("shows partitions and the fair-share table", async () => {
    const parts = await show("#partitions", `[...document.querySelectorAll("#partitions tbody tr")].map((r) => r.cells[0].textContent)`, "partitions");
    const sinfo = c.run(["sinfo", "-h", "-o", "%P"]).stdout.trim().split("\n");
    expect(parts).toEqual(sinfo);
    await shot("partitions");
    await show("#shares", `document.querySelector("#shares tbody tr")`, "fair-share rows");
    await shot("shares");
  });

  it("shows the job page with its script to the owner", async () => {
    const script = await show(`#job/${running}`, `document.querySelector("#job pre")?.textContent`, "job script");
    expect(script).toContain(MARKER);
    const text = await page.evaluate<string>(`document.getElementById("job").textContent`);
    expect(text).toContain("CPU efficiency");
    expect(text).toContain(`n1: 0,1,2,3`);
    await page.waitFor("a usage graph from two samples", `document.querySelector("#job svg")`, 15_000);
    await shot("job");
  });

  it.runIf(multiUser)("refuses the script to another user", async () => {
    await page.send("Network.clearBrowserCookies");
    await page.navigate(`${url}/ui?token=${tokens.other}#job/${running}`);
    await page.evaluate(`location.hash = "#job/${running}"`);
    const refused = await page.waitFor<string>("refusal", `document.querySelector("#job .refused")?.textContent`);
    expect(refused).toBe("Script not shown: Access/permission denied");
    expect(await page.evaluate(`document.getElementById("who").textContent`)).toBe(`signed in as ${OTHER}`);
    expect(await page.evaluate(`document.querySelector("#job pre")`)).toBeNull();
    await shot("job-refused");
  });

  it("polls one call at a time however often the view changes", async () => {
    // many route changes in a row must not start parallel poll loops
    await page.evaluate(`(async () => { for (let i = 0; i < 10; i++) { location.hash = i % 2 ? "#queue" : "#nodes"; await new Promise((r) => setTimeout(r, 20)); } })()`);
    const before = page.requests.filter((u) => u.includes("/ui/api/view")).length;
    await new Promise((r) => setTimeout(r, 6500));
    const polls = page.requests.filter((u) => u.includes("/ui/api/view")).length - before;
    // one loop polls every 2 s: 3 or 4 calls in 6.5 s, not 10 loops' worth
    expect(polls).toBeGreaterThanOrEqual(2);
    expect(polls).toBeLessThanOrEqual(5);
  });

  it("asked nothing of any origin but spurrestd's", () => {
    expect(page.requests.length).toBeGreaterThan(5);
    expect(page.requests.filter((u) => !u.startsWith(`${url}/`) && !u.startsWith("data:"))).toEqual([]);
  });
});
