/**
 * End-to-end: --exclusive=user on a real local cluster with two users (root and a test user).
 * While the test user's --exclusive=user job runs on n1, the user's plain job shares n1, root's
 * job for n1 waits (Resources) although CPUs are free there, and root's own --exclusive=user job
 * goes to n2; once the owner's jobs end, root's job starts on n1. Records show OverSubscribe=USER
 * (oracle 22.05: scontrol OverSubscribe=USER, squeue %h USER).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureUser, eventually, isRoot, startCluster, type Cluster } from "./cluster.ts";

const A = "spurexcla";
const ready = isRoot() && ensureUser(A);

let c: Cluster;

beforeAll(() => {
  if (ready) c = startCluster(["--nodes", "2", "--cpus-per-node", "4", "--mem-per-node", "4000"]);
});
afterAll(() => c?.down());

function sbatchAs(user: string | undefined, args: string[]): string {
  const r = c.run(["sbatch", "--parsable", "-o", "/dev/null", ...args], user === undefined ? {} : { user, cwd: "/tmp" });
  expect(r.stderr).toBe("");
  return r.stdout.trim();
}

const row = (id: string): string => c.run(["squeue", "-h", "-j", id, "-o", "%T %h %N %r"]).stdout.trim();
const running = (id: string) => eventually(`job ${id} running`, () => (row(id).startsWith("RUNNING") ? row(id) : undefined), 60_000);

describe.runIf(ready)("--exclusive=user", () => {
  it("shares nodes with the same user's jobs only", async () => {
    const owner = sbatchAs(A, ["--exclusive=user", "-n1", "-w", "n1", "--wrap", "sleep 300"]);
    expect(await running(owner)).toBe("RUNNING USER n1 None");
    expect(c.run(["scontrol", "show", "job", owner]).stdout).toContain(" OverSubscribe=USER ");
    const same = sbatchAs(A, ["-n1", "-w", "n1", "--wrap", "sleep 300"]);
    expect(await running(same)).toBe("RUNNING OK n1 None");
    const other = sbatchAs(undefined, ["-n1", "-w", "n1", "--wrap", "sleep 300"]);
    const elsewhere = sbatchAs(undefined, ["--exclusive=user", "-n1", "--wrap", "sleep 300"]);
    // root's --exclusive=user job starts on n2 (n1 has another user's jobs); the pass that placed it left root's n1 job waiting
    expect(await running(elsewhere)).toBe("RUNNING USER n2 None");
    await eventually("root's n1 job waits for Resources", () => (row(other) === "PENDING OK  Resources" ? true : undefined), 30_000);
    c.run(["scancel", owner, same]);
    expect(await running(other)).toBe("RUNNING OK n1 None");
    c.run(["scancel", other, elsewhere]);
  });
});
