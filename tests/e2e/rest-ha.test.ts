/**
 * End-to-end: spurrestd in front of three replicated controllers, with TLS on every
 * listener (spur up --controllers 3 --tls: Raft peers, controllers, agents and REST
 * all over TLS with the cluster CA). spurrestd follows the leader: after the leader is
 * killed (SIGKILL) the same REST client keeps listing and submitting jobs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;
let ca = "";
let rest = "";
let token = "";
let replicas: Map<number, string>;

beforeAll(() => {
  c = startCluster(["--controllers", "3", "--nodes", "1", "--tls"]);
  const conf = readFileSync(c.conf, "utf8");
  ca = readFileSync(join(c.dir, "cluster", "tls", "ca.crt"), "utf8");
  rest = `https://127.0.0.1:${/^RestPort=(\d+)/m.exec(conf)?.[1]}`;
  const line = /^SpurControllers=(\S+)/m.exec(conf)?.[1] ?? "";
  replicas = new Map(line.split(",").map((p) => [Number(p.split("@")[0]), `https://${(p.split("@")[1] ?? "").split(":").slice(0, 2).join(":")}`]));
  token = /^SLURM_JWT=(\S+)/.exec(c.run(["scontrol", "token", "lifespan=3600"]).stdout)?.[1] ?? "";
}, 120_000);
afterAll(() => c?.down());

const tlsInit = () => ({ tls: { ca } }) as RequestInit;
const headers = () => ({ "X-SLURM-USER-NAME": "root", "X-SLURM-USER-TOKEN": token, "content-type": "application/json" });

async function role(url: string): Promise<string> {
  try {
    const res = await fetch(`${url}/spur.v1.Controller/Ping`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}", signal: AbortSignal.timeout(1000), ...tlsInit() });
    return ((await res.json()) as { raft?: { role?: string } }).raft?.role ?? "";
  } catch {
    return "down";
  }
}

async function leader(): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for (const [id, url] of replicas) if ((await role(url)) === "leader") return id;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("no leader within 30 s");
}

async function submit(name: string): Promise<number> {
  const res = await fetch(`${rest}/slurm/v0.0.42/job/submit`, {
    method: "POST", headers: headers(), ...tlsInit(),
    body: JSON.stringify({ job: { name, script: "#!/bin/sh\nsleep 60\n", current_working_directory: "/tmp", environment: ["PATH=/bin:/usr/bin"] } }),
  });
  const body = (await res.json()) as { job_id?: number; errors?: unknown[] };
  if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${JSON.stringify(body)}`);
  return body.job_id ?? 0;
}

async function jobNames(): Promise<string[]> {
  const res = await fetch(`${rest}/slurm/v0.0.42/jobs`, { headers: headers(), ...tlsInit(), signal: AbortSignal.timeout(15_000) });
  if (res.status !== 200) throw new Error(`GET /jobs answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { jobs: { name: string }[] }).jobs.map((j) => j.name);
}

describe("spurrestd with replicated controllers and TLS", () => {
  it("keeps serving after the leader is killed", async () => {
    expect(token).not.toBe("");
    expect(await submit("before")).toBeGreaterThan(0);
    expect(await jobNames()).toContain("before");
    const first = await leader();
    process.kill(c.pid(`spurctld-${first}`), "SIGKILL");
    // The REST client is not told anything: spurrestd finds the new leader itself.
    const deadline = Date.now() + 60_000;
    let names: string[] = [];
    for (;;) {
      try {
        names = await jobNames();
        break;
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(names).toContain("before");
    const second = await leader();
    expect(second).not.toBe(first);
    expect(await submit("after")).toBeGreaterThan(0);
    expect(await jobNames()).toEqual(expect.arrayContaining(["before", "after"]));
  }, 150_000);
});
