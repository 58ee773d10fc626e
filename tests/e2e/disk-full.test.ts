/**
 * End-to-end: the controller's state directory on a full file system (a small tmpfs).
 * Single controller: a submission that cannot be logged is refused with "No space left on
 * device" and leaves no job behind (a client that retries does not submit twice); the
 * daemon stays up and serves again by itself once there is room; a restart replays a log
 * with no gap. Three controllers: a follower whose disk is full stays up, the other two
 * carry on, and it catches up once there is room.
 * Needs root and mount(2); skipped with the reason otherwise.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { eventually, isRoot, startCluster, type Cluster } from "./cluster.ts";

const mounts: string[] = [];
const clusters: Cluster[] = [];

/** Why this machine cannot run the test, or "" when it can. */
function cannotMount(): string {
  if (!isRoot()) return "needs root to mount a tmpfs";
  const probe = join("/tmp", `spur-tmpfs-probe-${process.pid}`);
  mkdirSync(probe, { recursive: true });
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], { encoding: "utf8" });
  if (r.status !== 0) return `cannot mount a tmpfs here: ${r.stderr.trim()}`;
  spawnSync("umount", [probe]);
  rmSync(probe, { recursive: true, force: true });
  return "";
}
const skipWhy = cannotMount();
if (skipWhy !== "") console.warn(`disk-full e2e skipped: ${skipWhy}`);

function mountTmpfs(dir: string, size: string): void {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`mount ${dir}: ${r.stderr}`);
  mounts.push(dir);
}

/** Take every free byte of the file system holding `dir`. */
function fill(dir: string): void {
  spawnSync("dd", ["if=/dev/zero", `of=${join(dir, "filler")}`, "bs=64k"], { encoding: "utf8" });
}
const unfill = (dir: string) => rmSync(join(dir, "filler"), { force: true });

afterAll(() => {
  // Lazy unmounts first (daemons may still hold files there), so down() can remove the tree.
  for (const m of mounts.reverse()) spawnSync("umount", ["-l", m]);
  for (const c of clusters) c.down();
});

/** A script big enough (200 KB) that logging it needs fresh pages. */
const bigScript = `#!/bin/sh\n${"# padding padding padding padding padding padding padding padding\n".repeat(3000)}true\n`;

function queue(c: Cluster): string[] {
  return c.run(["squeue", "-h", "-o", "%i"]).stdout.split("\n").map((l) => l.trim()).filter(Boolean);
}

describe.skipIf(skipWhy !== "")("a full state directory", () => {
  it("single controller: refuses with ENOSPC, changes nothing, serves again when there is room", async () => {
    let ctldDir = "";
    const c = startCluster(["--nodes", "1", "--cpus-per-node", "2"], {
      beforeUp: (state) => {
        ctldDir = join(state, "ctld");
        mountTmpfs(ctldDir, "4m");
      },
    });
    clusters.push(c);
    const script = c.write("big.sh", bigScript);
    const first = c.run(["sbatch", "--hold", "--parsable", script]);
    expect(first.code, first.stderr).toBe(0);
    fill(ctldDir);
    const before = queue(c);
    let refused: ReturnType<Cluster["run"]> | undefined;
    for (let i = 0; i < 20 && refused === undefined; i++) {
      const r = c.run(["sbatch", "--hold", "--parsable", script]);
      if (r.code !== 0) refused = r;
      else before.push(r.stdout.trim()); // room left in the WAL: this one really is logged
    }
    expect(refused, "no submission was refused on a full disk").toBeDefined();
    expect(refused?.stderr).toContain("sbatch: error: Batch job submission failed: No space left on device");
    // Retrying while full changes nothing either: no job appears for a refused submission.
    expect(c.run(["sbatch", "--hold", script]).stderr).toContain("No space left on device");
    expect(queue(c).sort()).toEqual([...before].sort());
    expect(c.run(["scancel", before[0] as string]).stderr).toContain("No space left on device");
    expect(queue(c)).toContain(before[0]);
    const ping = c.run(["scontrol", "ping"]);
    expect(ping.stdout).toMatch(/UP/); // the daemon stayed up
    // Room again: it serves by itself, with no restart.
    unfill(ctldDir);
    const after = await eventually("submissions accepted again", () => {
      const r = c.run(["sbatch", "--hold", "--parsable", script]);
      return r.code === 0 ? r.stdout.trim() : undefined;
    });
    expect(Number(after)).toBeGreaterThan(Math.max(...before.map(Number)));
    expect(c.run(["scancel", before[0] as string]).code).toBe(0);
    const log = readFileSync(join(c.dir, "cluster", "log", "spurctld.log"), "utf8");
    expect(log.match(/no space left on the state directory/g)?.length).toBe(1); // logged once
    // A restart replays the log: no gap, nothing lost, nothing doubled.
    const expected = queue(c).sort();
    c.reconfigure("");
    const replayed = await eventually("controller back", () => (c.run(["squeue", "-h", "-o", "%i"]).code === 0 ? queue(c).sort() : undefined));
    expect(replayed).toEqual(expected);
  }, 180_000);

  it("three controllers: a follower with a full disk stays up and catches up once there is room", async () => {
    const dirs = new Map<number, string>();
    const c = startCluster(["--controllers", "3", "--nodes", "1", "--cpus-per-node", "2"], {
      beforeUp: (state) => {
        for (const id of [1, 2, 3]) {
          const d = join(state, "ctld", `ctld-${id}`);
          mountTmpfs(d, "8m");
          dirs.set(id, d);
        }
      },
    });
    clusters.push(c);
    const urls = new Map(
      (/^SpurControllers=(\S+)/m.exec(readFileSync(c.conf, "utf8"))?.[1] ?? "").split(",").map((p) => [Number(p.split("@")[0]), `http://${(p.split("@")[1] ?? "").split(":").slice(0, 2).join(":")}`] as const),
    );
    const ping = (id: number) => {
      const r = spawnSync("curl", ["-s", "-m", "2", "-X", "POST", "-H", "content-type: application/json", "-d", "{}", `${urls.get(id)}/spur.v1.Controller/Ping`], { encoding: "utf8" });
      try {
        return (JSON.parse(r.stdout) as { raft?: { role?: string; appliedIndex?: string | number } }).raft;
      } catch {
        return undefined;
      }
    };
    const leader = await eventually("a leader", () => [1, 2, 3].find((id) => ping(id)?.role === "leader"));
    const full = [1, 2, 3].find((id) => id !== leader) as number;
    const script = c.write("big.sh", bigScript);
    expect(c.run(["sbatch", "--hold", script]).code).toBe(0);
    fill(dirs.get(full) as string);
    const accepted: string[] = [];
    for (let i = 0; i < 8; i++) {
      const r = c.run(["sbatch", "--hold", "--parsable", script]);
      expect(r.code, r.stderr).toBe(0); // the two others are a majority
      accepted.push(r.stdout.trim());
    }
    const pid = c.pid(`spurctld-${full}`);
    expect(existsSync(`/proc/${pid}`), "the full replica exited").toBe(true);
    const log = () => readFileSync(join(c.dir, "cluster", "log", `spurctld-${full}.log`), "utf8");
    await eventually("the full replica says so", () => (/no space left on the state directory/.test(log()) ? true : undefined));
    unfill(dirs.get(full) as string);
    await eventually("the full replica writes again", () => (/takes writes again/.test(log()) ? true : undefined), 30_000);
    const leaderApplied = Number(ping(leader)?.appliedIndex ?? 0);
    await eventually("the full replica caught up", () => (Number(ping(full)?.appliedIndex ?? 0) >= leaderApplied ? true : undefined), 30_000);
    expect(existsSync(`/proc/${pid}`)).toBe(true);
    expect(queue(c)).toEqual(expect.arrayContaining(accepted));
  }, 180_000);
});
