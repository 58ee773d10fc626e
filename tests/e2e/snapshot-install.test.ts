/**
 * End-to-end: a replica that was away while the others snapshotted and dropped the log it
 * lacks is brought back by InstallSnapshot. Three replicated spurctld with a tiny snapshot
 * interval; one follower is killed, jobs are submitted until both others have taken a
 * snapshot and compacted, the follower restarts, receives the leader's snapshot (its log
 * says so) and then holds the same jobs as the leader (compared on /metrics). Jobs cancelled
 * while it was away were purged after MinJobAge before the snapshot: the returning replica never
 * applies those purges, so their records reach its job archive with the snapshot.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { Database } from "bun:sqlite";
import { ARCHIVE_FILE } from "../../src/ctld/job-archive.ts";
import { dirname, join } from "node:path";
import { emptyJobSpec } from "../../src/sched/model/records.ts";
import { eventually, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;
let urls: Map<number, string>;

beforeAll(() => {
  c = startCluster(["--controllers", "3", "--nodes", "1", "--cpus-per-node", "2"]);
  c.reconfigure("SpurRaftSnapshotEntries=30\nSpurRaftTrailingEntries=5\nMinJobAge=1");
  const line = /^SpurControllers=(\S+)/m.exec(readFileSync(c.conf, "utf8"))?.[1] ?? "";
  urls = new Map(line.split(",").map((p) => [Number(p.split("@")[0]), `http://${(p.split("@")[1] ?? "").split(":").slice(0, 2).join(":")}`]));
});
afterAll(() => c?.down());

const logOf = (id: number) => readFileSync(join(c.dir, "cluster", "log", `spurctld-${id}.log`), "utf8");

async function post(url: string, method: string, body: unknown): Promise<Response | undefined> {
  try {
    return await fetch(`${url}/spur.v1.Controller/${method}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  } catch {
    return undefined;
  }
}

async function leader(except?: number): Promise<number> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    for (const [id, url] of urls) {
      if (id === except) continue;
      const res = await post(url, "Ping", {});
      const role = res?.ok ? ((await res.json()) as { raft?: { role?: string } }).raft?.role : undefined;
      if (role === "leader") return id;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("no leader within 20 s");
}

async function jobCount(id: number): Promise<number | undefined> {
  try {
    const text = await (await fetch(`${urls.get(id)}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    return text.split("\n").filter((l) => l.startsWith("spur_jobs{")).reduce((n, l) => n + Number(l.split(" ").pop()), 0);
  } catch {
    return undefined;
  }
}

/** Job ids in replica `id`'s archive file (ctld/job-archive.ts), read beside it. */
function archivedIds(id: number): number[] {
  const path = findFile(join(c.dir, "cluster"), ARCHIVE_FILE, `ctld-${id}`);
  if (path === undefined) return [];
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ id: number }, []>("SELECT id FROM jobs").all().map((r) => r.id);
  } finally {
    db.close();
  }
}

/** The snapshot image files beside replica `id`'s Raft log (raft/snapshot-file.ts). */
function imageFiles(id: number): string[] {
  const log = findFile(join(c.dir, "cluster"), "raft.sqlite", `ctld-${id}`);
  if (log === undefined) return [];
  return readdirSync(dirname(log)).filter((n) => n.startsWith("raft.sqlite.snap-") && !n.endsWith(".tmp"));
}

function findFile(dir: string, name: string, parent: string): string | undefined {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isFile() && e.name === name && dir.endsWith(`/${parent}`)) return join(dir, name);
    if (e.isDirectory()) {
      const found = findFile(join(dir, e.name), name, parent);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

describe("snapshot install", () => {
  it("brings a replica back from a snapshot after the others compacted their logs", async () => {
    const first = await leader();
    const away = [...urls.keys()].find((id) => id !== first) as number;
    process.kill(c.pid(`spurctld-${away}`), "SIGKILL");
    let acked = 0;
    const live = [...urls.keys()].filter((id) => id !== away);
    // Jobs that end (cancelled) and are purged while the replica is away.
    const gone: number[] = [];
    for (let i = 0; i < 3; i++) {
      const lead = await leader(away);
      const res = await post(urls.get(lead) as string, "Submit", { spec: { ...emptyJobSpec(), name: `gone${i}`, script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true } });
      const jobId = res?.ok ? ((await res.json()) as { jobId?: number }).jobId : undefined;
      if (jobId === undefined) continue;
      await post(urls.get(lead) as string, "Cancel", { filter: { jobIds: [String(jobId)] } });
      gone.push(jobId);
    }
    expect(gone.length).toBeGreaterThan(0);
    for (const id of live) await eventually(`replica ${id} purged the cancelled jobs`, () => (gone.every((j) => archivedIds(id).includes(j)) ? true : undefined), 30_000);
    for (let i = 0; i < 400 && !live.every((id) => logOf(id).includes("snapshot taken")); i++) {
      const lead = await leader(away);
      const res = await post(urls.get(lead) as string, "Submit", { spec: { ...emptyJobSpec(), name: `s${i}`, script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true } });
      if (res?.ok) acked++;
    }
    for (const id of live) expect(logOf(id), `replica ${id} took no snapshot`).toContain("snapshot taken");
    // ...built by the snapshot worker from its image and the replica's log, not given up for the replica's own thread
    for (const id of live) expect(logOf(id), `replica ${id} gave its snapshot worker up`).not.toContain("snapshot worker stopped");
    // ...which wrote the image to a file beside the log (the replica's thread records only its name);
    // one superseded since is removed at the next durable write
    for (const id of live) expect(imageFiles(id).length, `replica ${id}'s image files: ${imageFiles(id).join(" ")}`).toBeOneOf([1, 2]);
    expect(acked).toBeGreaterThan(10);

    c.startDaemon(`spurctld-${away}`, ["spurctld", "--id", String(away), "--conf", c.conf]);
    await eventually("the snapshot installed on the returning replica", () => (logOf(away).includes("snapshot installed from the leader") ? true : undefined), 30_000);
    const lead = await leader();
    const want = await jobCount(lead);
    expect(want).toBeGreaterThanOrEqual(acked);
    const deadline = Date.now() + 20_000;
    let got = await jobCount(away);
    while (got !== want && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      got = await jobCount(away);
    }
    expect(got).toBe(want);
    expect(archivedIds(away)).toEqual(expect.arrayContaining(gone));
    for (const id of urls.keys()) expect(logOf(id), `replica ${id} gave its snapshot worker up`).not.toContain("snapshot worker stopped");
  }, 120_000);
});
