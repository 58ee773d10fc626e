/**
 * End-to-end: adding and removing a controller replica at run time. Three replicated
 * spurctld run; a fourth starts with --join, `spur controller add` makes it a learner and
 * then a voter once caught up, `scontrol ping` shows it as a voting member; a follower is
 * then removed with `spur controller remove`. Jobs are submitted before, between and after
 * the changes, and every acknowledged one still exists at the end (none lost). Clients
 * find the controllers from the membership file the replicas rewrite beside spur.conf
 * (spur.conf itself is not edited after the removal); a replica started without --join
 * against the running cluster that does not count it refuses to start.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "node:net";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, eventually, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--controllers", "3", "--nodes", "1", "--cpus-per-node", "2"]);
});
afterAll(() => {
  try {
    process.kill(c.pid("spurctld-4"), "SIGTERM");
  } catch {
    /* not started or gone */
  }
  c?.down();
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function setControllers(edit: (items: string[]) => string[]): void {
  const text = readFileSync(c.conf, "utf8");
  const line = /^SpurControllers=(\S+)$/m.exec(text)?.[1] ?? "";
  writeFileSync(c.conf, text.replace(/^SpurControllers=\S+$/m, `SpurControllers=${edit(line.split(",")).join(",")}`));
}

const submitted: string[] = [];
function submit(n: number): void {
  for (let i = 0; i < n; i++) {
    const r = c.run(["sbatch", "--parsable", "-o", "/dev/null", "--wrap", "true"]);
    expect(r.code, r.stderr).toBe(0);
    submitted.push(r.stdout.trim());
  }
}

describe("controller membership at run time", () => {
  it("adds a 4th replica as a voter and removes one, losing no job", async () => {
    submit(3);
    const [port, raftPort] = [await freePort(), await freePort()];
    setControllers((items) => [...items, `4@127.0.0.1:${port}:${raftPort}`]);
    c.startDaemon("spurctld-4", ["spurctld", "--id", "4", "--join", "--conf", c.conf]);
    submit(2);

    const add = c.run(["controller", "add", "4", `127.0.0.1:${port}:${raftPort}`]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain("voters 1,2,3,4");
    submit(2);

    const ping = c.run(["scontrol", "ping"]);
    expect(ping.code, ping.stderr).toBe(0);
    const line4 = ping.stdout.split("\n").find((l) => l.includes("Raft id=4 ")) ?? "";
    expect(line4, ping.stdout).toMatch(/role=(follower|leader)/);
    expect(line4).not.toMatch(/learner|removed/);
    // sdiag ends with the Raft section: four voters, one row each.
    const diag = c.run(["sdiag"]);
    expect(diag.code, diag.stderr).toBe(0);
    const raft = diag.stdout.slice(diag.stdout.indexOf("Raft replication (Spur controllers):"));
    expect(raft).toMatch(/\tLeader: \d+, term \d+, commit index \d+, 4 voters, 4 of 4 controllers reachable/);
    expect(raft.match(/^\t\d+ +(leader|follower) +\d+ +\d+ +\d+ +\d+ +voter /gm)?.length, raft).toBe(4);

    // Refusals are clear: an unknown member, a bad address.
    const unknown = c.run(["controller", "remove", "9"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("controller 9 is not a member");

    // Remove a follower (not the leader) among the first three.
    const leaderLine = ping.stdout.split("\n").find((l) => l.includes("role=leader")) ?? "";
    const leaderId = Number(/Raft id=(\d+)/.exec(leaderLine)?.[1]);
    const victim = [1, 2, 3].find((id) => id !== leaderId) as number;
    const rm = c.run(["controller", "remove", String(victim)]);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain("voters ");
    expect(rm.stdout).not.toMatch(new RegExp(`voters [0-9,]*\\b${victim}\\b`));
    // spur.conf still lists the removed replica: clients go by the membership file instead.
    const membership = join(c.conf, "..", "spur-controllers.conf");
    const current = await eventually("membership file without the removed replica", () => {
      const text = readFileSync(membership, "utf8");
      return text.includes("4@127.0.0.1") && !new RegExp(`[=,]${victim}@`).test(text) ? text : undefined;
    });
    expect(current).toMatch(/^# index \d+$/m);
    process.kill(c.pid(`spurctld-${victim}`), "SIGTERM");
    const after = c.run(["scontrol", "ping"]);
    expect(after.stdout.match(/^Slurmctld/gm)?.length, after.stdout).toBe(3);
    expect(after.stdout).not.toContain(`Raft id=${victim} `);
    submit(3);

    // A new replica started without --join would begin a second cluster: it refuses.
    const [p5, r5] = [await freePort(), await freePort()];
    const conf5 = join(c.dir, "spur5.conf");
    writeFileSync(conf5, readFileSync(c.conf, "utf8").replace(/^SpurControllers=(\S+)$/m, `SpurControllers=$1,5@127.0.0.1:${p5}:${r5}`));
    const stranger = spawnSync(BIN, ["spurctld", "--id", "5", "--conf", conf5], { encoding: "utf8", timeout: 30_000 });
    expect(stranger.status, stranger.stdout + stranger.stderr).toBe(1);
    expect(stranger.stderr).toContain("controller 5 is not one of its members");
    expect(stranger.stderr).toContain("--join");

    // Three voters left: removing another is refused (it would leave two).
    const other = [1, 2, 3, 4].find((id) => id !== victim && id !== leaderId) as number;
    const refused = c.run(["controller", "remove", String(other)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/fewer than 3/);

    for (const id of submitted) {
      const show = c.run(["scontrol", "show", "job", id]);
      expect(show.code, `job ${id}: ${show.stderr}`).toBe(0);
      expect(show.stdout).toContain(`JobId=${id}`);
    }
  }, 180_000);
});
