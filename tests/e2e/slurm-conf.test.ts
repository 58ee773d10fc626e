/**
 * End-to-end: Spur runs from a site's own slurm.conf + gres.conf. `spur up --slurm-conf`
 * on the oracle's files (tests/fixtures/ops/slurm-oracle, as ../shared/oracle/slurm-up.sh
 * writes them) must show the nodes, partitions and GRES real Slurm 22.05 showed: sinfo,
 * sinfo -N -l and scontrol show node equal golden 003, 004, 017 and 018 after the masks
 * below, each of which hides only what differs between two machines or two runs.
 * The same cluster serves the metrics endpoints (controller MetricsPort, each agent's
 * RPC port), read as a scraper would and checked by the strict exposition parser.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { machine, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGolden } from "../unit/options/helpers.ts";
import { parseExposition } from "../unit/metrics/parse-exposition.ts";
import { BIN } from "./cluster.ts";

const SITE = resolve(__dirname, "../fixtures/ops/slurm-oracle");

/** [pattern, replacement, why]: applied to both sides. */
const MASKS: [RegExp, string, string][] = [
  [/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$/gm, "<DATE>", "sinfo -l prints the time it ran"],
  [/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\b/g, "<DATE>", "boot and start times"],
  [/\bVersion=\S+/g, "Version=<V>", "Slurm 22.05.8 vs Spur's own version"],
  [/\bPort=\d+/g, "Port=<PORT>", "spur up picks free ports so a site's running slurmd is never in the way (--site-ports keeps them)"],
  [/\bCPULoad=[\d.]+/g, "CPULoad=<M>", "measured load"],
  [/\bFreeMem=\d+/g, "FreeMem=<M>", "measured free memory"],
  [/\bOS=.*$/gm, "OS=<KERNEL>", "the kernel of the machine the goldens were recorded on"],
  [/\bLastBusyTime=\S+/g, "LastBusyTime=<T>", "Spur does not track LastBusyTime yet (prints Unknown): a known difference"],
  ...(machine() === "x86_64" ? [] : [[/\bArch=\S+/g, "Arch=<ARCH>", "goldens were recorded on x86_64"] as [RegExp, string, string]]),
];

const mask = (text: string): string => MASKS.reduce((t, [re, to]) => t.replace(re, to), text);

let state = "";
let env: NodeJS.ProcessEnv = {};

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), "spur-e2e-slurmconf-"));
  state = join(dir, "cluster");
  const up = spawnSync(BIN, ["up", "--detach", "--slurm-conf", SITE, "--state-dir", state], { encoding: "utf8", timeout: 90_000 });
  if (up.status !== 0) throw new Error(`spur up --slurm-conf failed: ${up.stdout}${up.stderr}`);
  expect(up.stderr).toContain("imported 4 nodes, 2 partitions, 16 GPUs");
  env = { ...process.env, SPUR_CONF: join(state, "spur.conf") };
});

afterAll(() => {
  if (state !== "") spawnSync(BIN, ["down", "--state-dir", state], { timeout: 30_000 });
  if (state !== "") rmSync(resolve(state, ".."), { recursive: true, force: true });
});

const run = (command: string | string[]) => {
  const argv = typeof command === "string" ? command.split(" ") : command;
  const r = spawnSync(BIN, argv, { env, cwd: resolve(state, ".."), encoding: "utf8", timeout: 30_000 });
  return { stdout: r.stdout ?? "", stderr: r.stderr ?? "", code: r.status ?? -1 };
};

describe("spur up --slurm-conf on the oracle's slurm.conf and gres.conf", () => {
  for (const name of ["003-sinfo-default.txt", "004-sinfo-N-l.txt", "017-scontrol-show-node-n3.txt", "018-scontrol-show-node-all.txt"]) {
    it(`matches golden ${name}`, () => {
      const golden = readGolden(name);
      const got = run(golden.command);
      expect(got.code).toBe(golden.exitCode);
      expect(got.stderr).toBe(golden.stderr);
      expect(mask(got.stdout)).toBe(mask(golden.stdout));
    });
  }

  it("keeps its state and spool under the state directory, never the site's", () => {
    const conf = readFileSync(join(state, "spur.conf"), "utf8");
    expect(conf).toContain(`StateSaveLocation=${state}/ctld`);
    expect(conf).toContain(`SlurmdSpoolDir=${state}/spool`);
    expect(conf).not.toContain("/tmp/slurm-oracle");
  });

  it("refuses to rewrite the configuration of a cluster that is running", () => {
    const again = spawnSync(BIN, ["up", "--detach", "--slurm-conf", SITE, "--state-dir", state], { encoding: "utf8" });
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("a cluster is already running");
  });
});

const scrape = async (port: string) => {
  const r = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toContain("text/plain; version=0.0.4");
  return parseExposition(await r.text());
};
const confValue = (re: RegExp): string => re.exec(readFileSync(join(state, "spur.conf"), "utf8"))?.[1] ?? "";

describe("metrics endpoints of that cluster", () => {
  it("controller: MetricsPort from spur.conf serves nodes, GPUs and jobs", async () => {
    const port = confValue(/^MetricsPort=(\d+)$/m);
    expect(Number(port)).toBeGreaterThan(0);
    const job = run(["sbatch", "--parsable", "-p", "gpu", "-G", "3", "--wrap", "sleep 30"]);
    expect(job.code).toBe(0);
    let m = await scrape(port);
    const deadline = Date.now() + 30_000;
    const runningGpuJobs = () => m.get("spur_jobs")?.samples.find((s) => s.labels.state === "running" && s.labels.partition === "gpu")?.value;
    while (runningGpuJobs() !== 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      m = await scrape(port);
    }
    expect(runningGpuJobs()).toBe(1);
    expect(m.get("slurm_gpus_total")?.samples[0]?.value).toBe(16);
    expect(m.get("slurm_gpus_alloc")?.samples[0]?.value).toBe(3);
    expect(m.get("slurm_nodes_idle")?.samples[0]?.value).toBe(3);
    expect(m.get("spur_rpc_requests_total")?.samples.some((s) => s.labels.method === "spur.v1.Controller/Submit")).toBe(true);
    run(`scancel ${job.stdout.trim()}`);
  });

  it("agent: GET /metrics on its RPC port lists its GPU inventory", async () => {
    const port = confValue(/^NodeName=n3 .*\bPort=(\d+)/m);
    const m = await scrape(port);
    expect(m.get("spurd_gpus")?.samples[0]).toMatchObject({ labels: { node: "n3", model: "mi300x" }, value: 8 });
    // the daemon's own figures under the client libraries' names
    expect(m.get("process_resident_memory_bytes")?.samples[0]?.value).toBeGreaterThan(1 << 20);
    expect(m.get("process_open_fds")?.samples[0]?.value).toBeGreaterThan(2);
  });

  it("the controller's RPC port serves /metrics too", async () => {
    const port = confValue(/^ControlPort=(\d+)$/m);
    const m = await scrape(port);
    expect(m.has("spur_build_info")).toBe(true);
    expect(m.get("process_cpu_seconds_total")?.samples[0]?.value).toBeGreaterThan(0);
    expect(m.get("spur_js_heap_bytes")?.samples.map((s) => s.labels.kind)).toEqual(["used", "capacity", "external"]);
  });
});
