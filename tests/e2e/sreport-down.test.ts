/**
 * End-to-end (issue 20): sreport's Down and deleted reservations on the compiled binary. A node
 * drained for a few seconds and resumed shows as Down in `sreport cluster utilization` (its 4
 * CPUs times the seconds it was out), and a reservation deleted after it started is still in
 * `sreport reservation utilization`, ending at its deletion; both survive a controller restart
 * (they are replicated state, replayed from the log).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN, eventually, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;
const restart = (): void => {
  spawnSync(BIN, ["down", "--state-dir", join(c.dir, "cluster")]); // not c.down(): that removes the state too
  const up = spawnSync(BIN, ["up", "--detach", "--state-dir", join(c.dir, "cluster")], { encoding: "utf8" });
  if (up.status !== 0) throw new Error(`spur up failed: ${up.stdout}${up.stderr}`);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const iso = (t: number): string => new Date(t * 1000).toISOString().slice(0, 19);

beforeAll(async () => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "4", "--mem-per-node", "2000"]);
  await eventually("controller answering", () => (c.run(["sinfo"]).code === 0 ? true : undefined), 60_000);
});
afterAll(() => c?.down());

describe("sreport Down and deleted reservations", () => {
  it("charges a drained node's time as Down and reports a deleted reservation up to its deletion, across a restart", async () => {
    // the hour the drain falls in (sreport rounds its window to whole hours)
    const from = Math.floor(Date.now() / 1000 / 3600) * 3600;
    expect(c.run(["scontrol", "update", "nodename=n2", "state=drain", "reason=e2e"]).code).toBe(0);
    const made = c.run(["scontrol", "create", "reservation", "reservationname=gone", "starttime=now", "duration=30", "nodes=n1", "users=root"]);
    expect(made.code, made.stderr).toBe(0);
    await sleep(3000);
    expect(c.run(["scontrol", "update", "nodename=n2", "state=resume"]).code).toBe(0);
    expect(c.run(["scontrol", "delete", "reservation", "gone"]).code).toBe(0);
    const deletedAt = Math.floor(Date.now() / 1000);
    const w = [`start=${iso(from)}`, `end=${iso(from + 3600)}`];
    const check = () => {
      const util = c.run(["sreport", "-t", "sec", "-P", "-n", "cluster", "utilization", ...w, "format=cl,d,al"]);
      expect(util.code, util.stderr).toBe(0);
      const [, down = "0", alloc = "0"] = util.stdout.trim().split("|");
      // n2's 4 CPUs for about 3 s (whole seconds between the two commands)
      expect(Number(down)).toBeGreaterThanOrEqual(4 * 2);
      expect(Number(down)).toBeLessThanOrEqual(4 * 10);
      // the reservation's 4 CPUs held until its deletion count as Allocated
      expect(Number(alloc)).toBeGreaterThanOrEqual(4 * 2);
      const resv = c.run(["sreport", "-P", "-n", "reservation", "utilization", ...w, "format=name,end"]);
      expect(resv.code, resv.stderr).toBe(0);
      const [name, end = ""] = resv.stdout.trim().split("|");
      expect(name).toBe("gone");
      expect(Math.abs(Date.parse(`${end}Z`) / 1000 - deletedAt)).toBeLessThanOrEqual(2);
      return util.stdout;
    };
    const before = check();
    expect(c.run(["scontrol", "show", "reservation"]).stdout).toContain("No reservations");
    restart();
    await eventually("controller answering again", () => (c.run(["sinfo"]).code === 0 ? true : undefined), 60_000);
    expect(check().split("|")[1]).toBe(before.split("|")[1]);
  });
});
