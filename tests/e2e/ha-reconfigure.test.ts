/**
 * End-to-end (issue 21): `scontrol create partition` and `scontrol reconfigure` in a cluster
 * of three replicated controllers. The reconfigure's configuration goes through the Raft log:
 * after it, spur.conf is put back as it was, and yet each leader that takes over (the first
 * one killed, then the next) and a replica restarted from its own state still has what the
 * reconfigure applied, as does the partition created with scontrol.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { startCluster, eventually, type Cluster } from "./cluster.ts";

let c: Cluster;
let urls: Map<number, string>;

beforeAll(async () => {
  c = startCluster(["--controllers", "3", "--nodes", "2", "--cpus-per-node", "2"]);
  const line = /^SpurControllers=(\S+)/m.exec(readFileSync(c.conf, "utf8"))?.[1] ?? "";
  urls = new Map(line.split(",").map((p) => [Number(p.split("@")[0]), `http://${(p.split("@")[1] ?? "").split(":").slice(0, 2).join(":")}`]));
  await eventually("controllers answering", () => (c.run(["sinfo"]).code === 0 ? true : undefined), 60_000);
});
afterAll(() => c?.down());

async function role(url: string): Promise<string> {
  try {
    const res = await fetch(`${url}/spur.v1.Controller/Ping`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}", signal: AbortSignal.timeout(500) });
    return ((await res.json()) as { raft?: { role?: string } }).raft?.role ?? "";
  } catch {
    return "down";
  }
}

async function leader(except = 0): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for (const [id, url] of urls) if (id !== except && (await role(url)) === "leader") return id;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("no leader within 30 s");
}

function kill(id: number): void {
  try {
    process.kill(c.pid(`spurctld-${id}`), "SIGKILL");
  } catch {
    /* already gone */
  }
}

const restart = (id: number) => c.startDaemon(`spurctld-${id}`, ["spurctld", "--id", String(id), "--conf", c.conf]);

/** What the serving leader shows of the two partitions (retrying while a new leader is elected). */
const partitions = () =>
  eventually("the leader answers", () => {
    const r = c.run(["sinfo", "-h", "-o", "%P %N %l"]);
    return r.code === 0 ? r.stdout.split("\n").filter((l) => /^(hp|fromfile) /.test(l)).sort() : undefined;
  }, 60_000);

describe("partitions and reconfigure with replicated controllers", () => {
  it("every leader after a kill, and a restarted replica, has the changes the log carried", async () => {
    const made = c.run(["scontrol", "create", "partition", "PartitionName=hp", "Nodes=n1", "MaxTime=15"]);
    expect(made, made.stderr).toEqual({ stdout: "", stderr: "", code: 0 });
    const original = readFileSync(c.conf, "utf8");
    writeFileSync(c.conf, `${original}PartitionName=fromfile Nodes=n2 MaxTime=9\n`);
    const re = c.run(["scontrol", "reconfigure"]);
    expect(re, re.stderr).toEqual({ stdout: "", stderr: "", code: 0 });
    // the file goes back: only the log knows the new partition now
    writeFileSync(c.conf, original);
    const want = ["fromfile n2 9:00", "hp n1 15:00"];
    // the reconfigure rebuilt the partitions from the file (as Slurm does): hp, made with scontrol, is gone
    expect(await partitions()).toEqual(["fromfile n2 9:00"]);
    expect(c.run(["scontrol", "create", "partition", "PartitionName=hp", "Nodes=n1", "MaxTime=15"]).code).toBe(0);
    expect(await partitions()).toEqual(want);
    const first = await leader();
    kill(first);
    const second = await leader(first);
    expect(await partitions()).toEqual(want);
    restart(first);
    kill(second);
    await leader(second);
    expect(await partitions()).toEqual(want);
    restart(second);
    // the replica restarted from its own log and snapshot (spur.conf no longer names fromfile) leads again
    kill(await leader());
    expect(await partitions()).toEqual(want);
  });
});
