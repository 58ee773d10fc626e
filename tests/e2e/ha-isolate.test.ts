/**
 * End-to-end: one follower of three replicated spurctld is cut off from the others with an
 * nftables rule that drops every packet to and from its Raft port (it still sends, but hears
 * nothing: an asymmetric partition). With pre-vote and check-quorum it must not disrupt the
 * healthy leader: same leader, same term, submissions keep being acknowledged. Once the rule
 * is gone it catches up to the leader's commit index. Skips (saying why) without root or nft.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { startCluster, eventually, isRoot, type Cluster } from "./cluster.ts";

interface Replica {
  id: number;
  url: string;
  raftPort: number;
}
interface Status {
  role: string;
  term: number;
  commitIndex: number;
}

const TABLE = `spur_isolate_${process.pid}`;
let c: Cluster;
let replicas: Replica[] = [];
let skipWhy = "";

const nft = (args: string[]) => spawnSync("nft", args, { encoding: "utf8" });

beforeAll(() => {
  if (!isRoot()) skipWhy = "needs root (nftables rules)";
  else if (nft(["add", "table", "inet", TABLE]).status !== 0) skipWhy = "nft is missing or nf_tables is unavailable (Debian: nftables)";
  if (skipWhy !== "") return;
  c = startCluster(["--controllers", "3", "--nodes", "1", "--cpus-per-node", "2"]);
  const line = /^SpurControllers=(\S+)/m.exec(readFileSync(c.conf, "utf8"))?.[1] ?? "";
  replicas = line.split(",").map((p) => {
    const [id, addr] = p.split("@") as [string, string];
    const [host, port, raftPort] = addr.split(":") as [string, string, string];
    return { id: Number(id), url: `http://${host}:${port}`, raftPort: Number(raftPort) };
  });
});
afterAll(() => {
  nft(["delete", "table", "inet", TABLE]);
  c?.down();
});

async function status(url: string): Promise<Status | undefined> {
  try {
    const res = await fetch(`${url}/spur.v1.Controller/Ping`, {
      method: "POST", headers: { "content-type": "application/json" }, body: "{}", signal: AbortSignal.timeout(1000),
    });
    const raft = ((await res.json()) as { raft?: { role?: string; term?: number; commitIndex?: number } }).raft;
    return raft === undefined ? undefined : { role: raft.role ?? "", term: raft.term ?? 0, commitIndex: raft.commitIndex ?? 0 };
  } catch {
    return undefined;
  }
}

async function leader(): Promise<{ r: Replica; s: Status }> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    for (const r of replicas) {
      const s = await status(r.url);
      if (s?.role === "leader") return { r, s };
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error("no leader within 20 s");
}

function submit(name: string): void {
  const r = c.run(["sbatch", "--parsable", "-J", name, "-o", "/dev/null", "--wrap", "true"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
}

describe("replicated controllers: an isolated follower", () => {
  it("does not disrupt the leader while cut off, and catches up when the link returns", async (ctx) => {
    if (skipWhy !== "") ctx.skip(skipWhy);
    submit("before");
    const before = await leader();
    const victim = replicas.find((r) => r.id !== before.r.id) as Replica;
    // Drop everything to and from the victim's Raft listener: no leader message reaches it.
    nft(["add", "chain", "inet", TABLE, "out", "{ type filter hook output priority 0 ; }"]);
    const added = nft(["add", "rule", "inet", TABLE, "out", "tcp", "dport", String(victim.raftPort), "drop"]);
    nft(["add", "rule", "inet", TABLE, "out", "tcp", "sport", String(victim.raftPort), "drop"]);
    expect(added.status, added.stderr).toBe(0);
    // Several election timeouts (6 ticks x 50 ms) pass while clients keep submitting.
    const t0 = Date.now();
    let n = 0;
    while (Date.now() - t0 < 4000) submit(`cut-${n++}`);
    const during = await leader();
    expect(during.r.id).toBe(before.r.id);
    expect(during.s.term).toBe(before.s.term);
    const victimDuring = await status(victim.url);
    expect(victimDuring?.role).not.toBe("leader");
    expect(victimDuring?.commitIndex ?? 0).toBeLessThan(during.s.commitIndex);
    // Heal: the victim catches up, and the leader is still the same one in the same term.
    nft(["flush", "chain", "inet", TABLE, "out"]);
    submit("after");
    const target = (await leader()).s.commitIndex;
    const deadline = Date.now() + 20_000;
    let caught = false;
    while (Date.now() < deadline && !caught) {
      caught = ((await status(victim.url))?.commitIndex ?? 0) >= target;
      if (!caught) await new Promise((res) => setTimeout(res, 100));
    }
    expect(caught).toBe(true);
    const after = await leader();
    expect(after.r.id).toBe(before.r.id);
    expect(after.s.term).toBe(before.s.term);
    // Every submission acknowledged while the follower was cut off runs and is on record once
    // (sacct lists a pending job only once it is eligible: wait for them all to finish).
    const finished = () => c.run(["sacct", "-n", "-X", "-P", "-o", "JobName,State"]).stdout.split("\n").filter((l) => l.startsWith("cut-") && l.endsWith("|COMPLETED"));
    await eventually("the cut-off period's jobs completed", () => (finished().length >= n ? true : undefined), 90_000);
    const names = finished().map((l) => l.split("|")[0]);
    expect(names.length).toBe(n);
    expect(new Set(names).size).toBe(n);
  }, 180_000);
});
