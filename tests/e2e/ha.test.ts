/**
 * End-to-end: three replicated spurctld (Raft) on loopback, two node agents, and a client
 * submitting continuously while the leader is killed with SIGKILL again and again, one
 * replica is frozen (SIGSTOP: every packet to it is dropped) and then all three are
 * killed and restarted. Checks: every acknowledged submission exists exactly once, no job
 * ran twice, job ids are unique and increase in acknowledgement order; with two of three
 * controllers gone, clients say plainly that there is no quorum.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, startCluster, eventually, type Cluster } from "./cluster.ts";

let c: Cluster;
let urls: Map<number, string>;

beforeAll(() => {
  c = startCluster(["--controllers", "3", "--nodes", "2", "--cpus-per-node", "4", "--slurmd-timeout", "20"]);
  const line = /^SpurControllers=(\S+)/m.exec(readFileSync(c.conf, "utf8"))?.[1] ?? "";
  urls = new Map(line.split(",").map((p) => [Number(p.split("@")[0]), `http://${(p.split("@")[1] ?? "").split(":").slice(0, 2).join(":")}`]));
});
afterAll(() => {
  for (const id of urls?.keys() ?? []) signal(id, "SIGCONT");
  c?.down();
});

function signal(id: number, sig: NodeJS.Signals): void {
  try {
    process.kill(c.pid(`spurctld-${id}`), sig);
  } catch {
    /* already gone */
  }
}

function restart(id: number): void {
  c.startDaemon(`spurctld-${id}`, ["spurctld", "--id", String(id), "--conf", c.conf]);
}

async function role(url: string): Promise<string> {
  try {
    const res = await fetch(`${url}/spur.v1.Controller/Ping`, {
      method: "POST", headers: { "content-type": "application/json" }, body: "{}", signal: AbortSignal.timeout(500),
    });
    return ((await res.json()) as { raft?: { role?: string } }).raft?.role ?? "";
  } catch {
    return "down";
  }
}

async function leader(): Promise<number> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    for (const [id, url] of urls) if ((await role(url)) === "leader") return id;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("no leader within 20 s");
}

/** Run a Spur command asynchronously (the test keeps running while it waits). */
function runAsync(args: string[], env: NodeJS.ProcessEnv = c.env): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    const child = spawn(BIN, args, { env, cwd: c.work });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ stdout, stderr, code: code ?? -1 }));
  });
}

interface Ack {
  name: string;
  id: number;
}

describe("replicated controllers", () => {
  it("loses no acknowledged submission and runs no job twice across kills, a freeze and a full restart", async () => {
    const ranLog = join(c.work, "ran.log");
    const acked: Ack[] = [];
    const perClient: Ack[][] = [[], []];
    const failed: string[] = [];
    let stop = false;
    // Two clients, each submitting one job after the other (a frozen leader stalls one request).
    const clients = perClient.map(async (mine, k) => {
      for (let n = 0; !stop; n++) {
        const name = `c${k}s${n}`;
        const r = await runAsync(["sbatch", "--parsable", "-J", name, "-o", "/dev/null", "--wrap", `echo $SLURM_JOB_ID >> ${ranLog}`], { ...c.env, SPUR_CONTROLLER_TIMEOUT_MS: "2000" });
        if (r.code === 0) {
          const ack = { name, id: Number(r.stdout.trim()) };
          acked.push(ack);
          mine.push(ack);
        } else failed.push(`${name}: ${r.stderr.trim()}`);
      }
    });
    const t0 = Date.now();
    const mark = (what: string) => console.log(`${((Date.now() - t0) / 1000).toFixed(1)}s ${what} (acked ${acked.length})`);
    // On a timeout, say why: the clients' last errors and the end of each replica's log.
    const ackedAfter = (count: number) =>
      eventually(`${count} more acks`, () => (acked.length >= count ? true : undefined), 30_000).catch((e: unknown) => {
        const logs = [...urls.keys()].map((id) => {
          const path = join(c.dir, "cluster", "log", `spurctld-${id}.log`);
          const lines = existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").slice(-8).join("\n") : "(no log)";
          return `--- spurctld-${id}:\n${lines}`;
        });
        throw new Error(`${String(e)}\nlast client errors:\n${failed.slice(-4).join("\n")}\n${logs.join("\n")}`);
      });

    await ackedAfter(5);
    for (let round = 0; round < 5; round++) {
      const lead = await leader();
      signal(lead, "SIGKILL");
      mark(`killed leader ${lead}`);
      await ackedAfter(acked.length + 3); // a new leader serves
      restart(lead);
    }
    // Freeze the current leader: the others elect a new one; it rejoins as a follower.
    const frozen = await leader();
    signal(frozen, "SIGSTOP");
    mark(`froze ${frozen}`);
    await ackedAfter(acked.length + 3);
    signal(frozen, "SIGCONT");
    await ackedAfter(acked.length + 3);
    // Kill all three, restart all three.
    for (const id of urls.keys()) signal(id, "SIGKILL");
    for (const id of urls.keys()) restart(id);
    mark("restarted all");
    await ackedAfter(acked.length + 5);
    stop = true;
    await Promise.all(clients);

    mark("clients stopped");
    // Quorum loss is reported plainly; a job running meanwhile keeps running and its end is
    // reported once the quorum is back.
    const survivor = c.run(["sbatch", "--parsable", "-o", join(c.work, "survivor.out"), "--wrap", "echo started; sleep 3; echo finished"]).stdout.trim();
    await eventually("survivor started", () => (existsSync(join(c.work, "survivor.out")) && readFileSync(join(c.work, "survivor.out"), "utf8").startsWith("started") ? true : undefined));
    const lead = await leader();
    const others = [...urls.keys()].filter((id) => id !== lead);
    signal(lead, "SIGKILL");
    signal(others[0] as number, "SIGKILL");
    const q = await runAsync(["squeue"], { ...c.env, SPUR_CONTROLLER_WAIT_MS: "1000" });
    expect(q.code).toBe(1);
    expect(q.stderr).toMatch(/no quorum: 1 of 3 controllers reachable, 2 needed/);
    expect(q.stderr).toMatch(/Unable to contact slurm controller/);
    await eventually("survivor finished without a quorum", () => (readFileSync(join(c.work, "survivor.out"), "utf8").includes("finished") ? true : undefined));
    restart(lead);
    restart(others[0] as number);
    await eventually("survivor reported", () => (c.run(["sacct", "-n", "-X", "-P", "-o", "State", "-j", survivor]).stdout.trim() === "COMPLETED" ? true : undefined), 30_000);
    mark("quorum checked");
    // Every job ends; then compare what the client was told with what the cluster holds.
    await eventually("queue drained", () => {
      const r = c.run(["squeue", "-h", "-o", "%i"]);
      return r.code === 0 && r.stdout.trim() === "" ? true : undefined;
    }, 60_000);
    const rows = c.run(["sacct", "-n", "-X", "-P", "-o", "JobID,JobName,State"]).stdout.trim().split("\n").filter(Boolean);
    const jobs = rows.map((r) => r.split("|")).map(([id, name, state]) => ({ id: Number(id), name: name ?? "", state: state ?? "" }));
    const byName = new Map<string, number[]>();
    for (const j of jobs) byName.set(j.name, [...(byName.get(j.name) ?? []), j.id]);
    for (const a of acked) expect(byName.get(a.name), `acked ${a.name} (job ${a.id})`).toEqual([a.id]);
    for (const [name, ids] of byName) expect(ids.length, `job name ${name}`).toBe(1); // nothing submitted twice
    const ids = jobs.map((j) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
    // A submission made after another was acknowledged gets a larger id.
    for (const mine of perClient) for (let i = 1; i < mine.length; i++) expect((mine[i] as Ack).id).toBeGreaterThan((mine[i - 1] as Ack).id);
    const ran = existsSync(ranLog) ? readFileSync(ranLog, "utf8").trim().split("\n").map(Number) : [];
    expect(new Set(ran).size, "no job ran twice").toBe(ran.length);
    for (const j of jobs) if (j.state === "COMPLETED" && j.name !== "wrap") expect(ran).toContain(j.id);
    expect(acked.length).toBeGreaterThan(20);
    console.log(`ha e2e: ${acked.length} acked, ${failed.length} refused during failovers, ${ran.length} ran\n${failed.join("\n")}`);
  }, 150_000);
});
