/**
 * End-to-end: a rolling upgrade. The controller is restarted with a newer binary (built
 * here with --version, same protocol) while a job runs and another waits: no job is lost,
 * the running one finishes with all its output, ids continue, and old agents keep working
 * with the new controller. Then agents are upgraded one at a time. An agent built with a
 * different protocol version is refused with a message that says what to upgrade.
 * The order tested here is the one docs/upgrade.md gives.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCluster, eventually, jobState, type Cluster } from "./cluster.ts";
import { controllerUrls, readConf } from "../../src/roles/conf-file.ts";

let c: Cluster;
let next = "";
let incompatible = "";

function build(outfile: string, args: string[]): void {
  const r = spawnSync(process.execPath, ["scripts/build-binary.ts", "--outfile", outfile, ...args], {
    cwd: resolve(__dirname, "../.."), encoding: "utf8", timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`build of ${outfile} failed: ${r.stdout}${r.stderr}`);
}

/** Start a daemon of the cluster from `bin` (replacing its PID file, so `spur down` stops it). */
function startWith(bin: string, daemon: string, args: string[]): void {
  const state = join(c.dir, "cluster");
  const log = openSync(join(state, "log", `${daemon}.log`), "a");
  const child = spawn(bin, args, { detached: true, stdio: ["ignore", log, log], env: c.env });
  closeSync(log);
  child.unref();
  writeFileSync(join(state, "pids", `${daemon}.pid`), String(child.pid));
}

async function stop(daemon: string): Promise<void> {
  const pid = c.pid(daemon);
  process.kill(pid, "SIGTERM");
  await eventually(`${daemon} stopped`, () => (existsSync(`/proc/${pid}`) ? undefined : true));
}

const nodeVersion = (node: string): string => /\bVersion=(\S+)/.exec(c.run(["scontrol", "show", "node", node]).stdout)?.[1] ?? "";
const submit = (args: string[]): string => {
  const r = c.run(["sbatch", "--parsable", ...args]);
  expect(r.stderr).toBe("");
  return r.stdout.trim();
};

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2"]);
  next = join(c.dir, "spur-next");
  incompatible = join(c.dir, "spur-proto2");
  build(next, ["--version", "0.1.1-next"]);
  build(incompatible, ["--version", "0.2.0-proto2", "--protocol", "2"]);
});
afterAll(() => c?.down());

describe("rolling upgrade", () => {
  it("restarts the controller on a newer binary without losing a job", async () => {
    const running = submit(["-w", "n1", "--wrap", "echo started; sleep 4; echo finished"]);
    const held = submit(["--hold", "--wrap", "true"]);
    await eventually("job started", () => (readFileSync(join(c.work, `slurm-${running}.out`), "utf8").startsWith("started") ? true : undefined));
    await stop("spurctld");
    startWith(next, "spurctld", ["spurctld", "--conf", c.conf]);
    // The controller's own version is in its Ping answer (scontrol show config shows the Slurm release Spur follows).
    const [url] = controllerUrls(readConf(c.conf), c.conf);
    let version = "";
    const ping = async (): Promise<void> => {
      const res = await fetch(`${url}/spur.v1.Controller/Ping`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}", signal: AbortSignal.timeout(3000) }).catch(() => undefined);
      version = res?.ok ? (((await res.json()) as { version?: string }).version ?? "") : "";
    };
    for (let i = 0; i < 100 && version !== "0.1.1-next"; i++) {
      await ping();
      if (version !== "0.1.1-next") await new Promise((r) => setTimeout(r, 200));
    }
    expect(version).toBe("0.1.1-next");
    await eventually("new controller answering", () => (c.run(["squeue", "-h", "-j", held]).code === 0 ? true : undefined));
    expect(c.run(["squeue", "-h", "-j", held, "-o", "%i %T %r"]).stdout.trim()).toBe(`${held} PENDING JobHeldUser`);
    await eventually("running job completed", () => (jobState(c, running) === "COMPLETED" ? true : undefined));
    expect(readFileSync(join(c.work, `slurm-${running}.out`), "utf8")).toBe("started\nfinished\n");
    expect(Number(submit(["--wrap", "true"]))).toBe(Number(held) + 1);
    expect(c.run(["sinfo", "-h", "-o", "%t"]).stdout.trim()).not.toMatch(/down/);
    c.run(["scancel", held]);
  });

  it("then upgrades agents one at a time, a job running through its node's upgrade", async () => {
    const id = submit(["-w", "n1", "--wrap", "echo started; sleep 3; echo survived"]);
    await eventually("job started", () => (readFileSync(join(c.work, `slurm-${id}.out`), "utf8").startsWith("started") ? true : undefined));
    await stop("spurd-n1");
    startWith(next, "spurd-n1", ["spurd", "-N", "n1", "--conf", c.conf]);
    await eventually("n1 on the new version", () => (nodeVersion("n1") === "0.1.1-next" ? true : undefined));
    await eventually("job completed", () => (jobState(c, id) === "COMPLETED" ? true : undefined));
    expect(readFileSync(join(c.work, `slurm-${id}.out`), "utf8")).toBe("started\nsurvived\n");
  });

  it("refuses an agent of another protocol version, saying what to upgrade", async () => {
    await stop("spurd-n2");
    startWith(incompatible, "spurd-n2", ["spurd", "-N", "n2", "--conf", c.conf]);
    const log = join(c.dir, "cluster", "log", "spurd-n2.log");
    const line = await eventually("refusal logged", () => readFileSync(log, "utf8").split("\n").find((l) => l.includes("spurd speaks 2")));
    expect(line).toContain("Incompatible protocol version: spurd speaks 2, this spurctld 0.1.1-next speaks 1: upgrade spurctld first, then the agents (docs/upgrade.md)");
    expect(nodeVersion("n2")).toBe("0.1.0");
    await stop("spurd-n2");
    startWith(next, "spurd-n2", ["spurd", "-N", "n2", "--conf", c.conf]);
    await eventually("n2 back on the new version", () => (nodeVersion("n2") === "0.1.1-next" ? true : undefined));
  });
});
