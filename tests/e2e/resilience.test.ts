/**
 * End-to-end: nothing is lost when daemons die. Kill -9 the controller mid-run
 * and restart it (jobs and ids intact, no id reused); kill -9 a node agent and
 * restart it (its running job keeps running and is reported); an agent that
 * stays dead ends its jobs as NODE_FAIL; malformed RPCs do not hurt; a second
 * Unix user cannot touch root's jobs; time limits end jobs as TIMEOUT.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startCluster, eventually, jobState, ensureUser, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2", "--slurmd-timeout", "4"]);
});
afterAll(() => c?.down());

const submit = (args: string[], user?: string): string => {
  const r = c.run(["sbatch", "--parsable", ...args], user ? { user } : {});
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim();
};

const running = (id: string) =>
  eventually(`job ${id} running`, () => (c.run(["squeue", "-h", "-j", id, "-o", "%T"]).stdout.trim() === "RUNNING" ? true : undefined));

/** The script itself has started (it wrote its first line): the agent has it, not just the controller. */
const started = (id: string) =>
  eventually(`job ${id} started`, () => {
    const path = join(c.work, `slurm-${id}.out`);
    return existsSync(path) && readFileSync(path, "utf8").startsWith("started") ? true : undefined;
  });

describe("daemon failures", () => {
  it("keeps every job and id across a controller kill -9 and restart", async () => {
    const a = submit(["--wrap", "echo started; sleep 3; echo a-done"]);
    const pending = submit(["--hold", "--wrap", "true"]);
    await started(a);
    process.kill(c.pid("spurctld"), "SIGKILL");
    expect(c.run(["squeue"]).code).toBe(1);
    c.startDaemon("spurctld", ["spurctld", "--conf", c.conf]);
    await eventually("controller back", () => (c.run(["squeue", "-h"]).code === 0 ? true : undefined));
    expect(c.run(["squeue", "-h", "-j", pending, "-o", "%i %r"]).stdout.trim()).toBe(`${pending} JobHeldUser`);
    await eventually("a completed", () => (jobState(c, a) === "COMPLETED" ? true : undefined));
    expect(readFileSync(join(c.work, `slurm-${a}.out`), "utf8")).toBe("started\na-done\n");
    const next = submit(["--wrap", "true"]);
    expect(Number(next)).toBe(Number(pending) + 1);
    c.run(["scancel", pending]);
  });

  it("keeps a running job when its node agent is killed and restarted", async () => {
    const id = submit(["-w", "n1", "--wrap", "echo started; sleep 4; echo survived"]);
    await started(id);
    process.kill(c.pid("spurd-n1"), "SIGKILL");
    c.startDaemon("spurd-n1", ["spurd", "-N", "n1", "--conf", c.conf]);
    await eventually("job completed", () => (jobState(c, id) === "COMPLETED" ? true : undefined));
    expect(readFileSync(join(c.work, `slurm-${id}.out`), "utf8")).toBe("started\nsurvived\n");
  });

  it("ends the jobs of an agent that stays dead as NODE_FAIL and marks the node down", async () => {
    const id = submit(["-w", "n2", "--wrap", "echo started; sleep 60"]);
    await started(id);
    process.kill(c.pid("spurd-n2"), "SIGKILL");
    await eventually("NODE_FAIL", () => (jobState(c, id) === "NODE_FAIL" ? true : undefined));
    expect(c.run(["sinfo", "-h", "-n", "n2", "-o", "%t"]).stdout.trim()).toBe("down*");
    c.run(["scancel", id]);
    c.startDaemon("spurd-n2", ["spurd", "-N", "n2", "--conf", c.conf]);
    await eventually("n2 back", () => (c.run(["sinfo", "-h", "-n", "n2", "-o", "%t"]).stdout.trim() === "idle" ? true : undefined));
  });

  it("survives malformed RPCs", async () => {
    const port = /ControlPort=(\d+)/.exec(readFileSync(c.conf, "utf8"))?.[1];
    const url = `http://127.0.0.1:${port}/spur.v1.Controller/Submit`;
    for (const body of ["{", "[]", '{"spec": 5}', '{"spec":{"nodesMin":"x"}}', "\u0000\u0001"]) {
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(res.status).toBeGreaterThanOrEqual(400);
    }
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/proto" }, body: new Uint8Array([0xff, 0xff, 0xff]) });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(c.run(["squeue", "-h"]).code).toBe(0);
  });
});

describe("identity", () => {
  const user = "spurtest";
  it.runIf(ensureUser(user))("runs a user's job as that user, and denies them root's jobs", async () => {
    const mine = submit(["--wrap", "sleep 30"]);
    const theirs = submit(["--wrap", "id -un; sleep 1"], user);
    const denied = c.run(["scancel", "-v", mine], { user });
    expect(denied.stderr).toContain("Access/permission denied");
    await running(mine);
    await eventually("their job done", () => (jobState(c, theirs) === "COMPLETED" ? true : undefined));
    expect(readFileSync(join(c.work, `slurm-${theirs}.out`), "utf8")).toBe(`${user}\n`);
    expect(c.run(["sacct", "-n", "-X", "-P", "-o", "User", "-j", theirs]).stdout.trim()).toBe(user);
    c.run(["scancel", mine]);
  });
});

describe("time limits", () => {
  it("ends a job at its time limit as TIMEOUT", async () => {
    const id = submit(["--time=1", "--wrap", "sleep 300"]);
    await running(id);
    await eventually("TIMEOUT", () => (jobState(c, id) === "TIMEOUT" ? true : undefined), 100_000);
  }, 120_000);
});
