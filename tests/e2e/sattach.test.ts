/**
 * End-to-end: sattach (issue 19, part 4) on the real binary: the output of a
 * running step from its start (what the agents kept) until it ends, -l labels,
 * --output-filter, --layout, the owner-only rule, and the refusals in Slurm
 * 22.05's words (recorded on the oracle 2026-12-04). The step waits for a
 * marker file, so the test decides when it ends; no fixed sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, ensureUser, eventually, isRoot, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;
let dir: string;
let job: string;

beforeAll(async () => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "4", "--mem-per-node", "4000"]);
  dir = mkdtempSync(join(c.work, "att-"));
  chmodSync(dir, 0o777);
  // every task prints two lines at once, then waits for `stop`
  const task = `echo "t$SLURM_PROCID-a"; echo "e$SLURM_PROCID" >&2; echo "t$SLURM_PROCID-b"; until [ -e ${dir}/stop ]; do sleep 0.1; done`;
  job = c.run(["sbatch", "--parsable", "-N2", "-n3", "-o", join(dir, "out"), "--wrap", `srun bash -c '${task}'`]).stdout.trim();
  await eventually("step 0 running", () => (c.run(["squeue", "-s", "-h", "-j", job, "-o", "%i"]).stdout.includes(`${job}.0`) ? true : undefined), 30_000);
  // squeue lists the step as soon as it is created, before the agents have started its tasks (a
  // loaded machine shows the gap): attach once every task has printed its lines to the job's output
  await eventually("step 0's tasks started", () => {
    const text = existsSync(join(dir, "out")) ? readFileSync(join(dir, "out"), "utf8") : "";
    return (text.match(/^t\d-b$/gm) ?? []).length >= 3 ? true : undefined;
  }, 30_000);
});
afterAll(() => {
  if (dir !== undefined) writeFileSync(join(dir, "stop"), "");
  c?.down();
});

/** Run sattach until its output holds `lines` lines, then return them (sattach keeps running: the step has not ended). */
async function attached(args: string[], lines: number): Promise<string[]> {
  const p = spawn(BIN, ["sattach", ...args], { env: c.env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  p.stdout.on("data", (b: Buffer) => (out += b.toString()));
  try {
    return await eventually(`${lines} lines from sattach ${args.join(" ")}`, () => {
      const got = out.split("\n").filter(Boolean);
      return got.length >= lines ? got : undefined;
    });
  } finally {
    p.kill();
  }
}

describe("sattach to a running step", () => {
  it("shows the step's output from its start", async () => {
    const lines = await attached([`${job}.0`], 6);
    expect(lines.sort()).toEqual(["t0-a", "t0-b", "t1-a", "t1-b", "t2-a", "t2-b"]);
  });

  it("-l labels lines with the task id; --output-filter shows one task", async () => {
    const labelled = await attached(["-l", `${job}.0`], 6);
    expect(labelled).toContain("2: t2-b");
    const one = await attached(["-l", "--output-filter=1", `${job}.0`], 2);
    expect(one).toEqual(["1: t1-a", "1: t1-b"]);
  });

  it("--layout prints the tasks per node (oracle's layout)", () => {
    const r = c.run(["sattach", "--layout", `${job}.0`]);
    expect(r).toEqual({
      stdout: "Job step layout:\n\t3 tasks, 2 nodes (n[1-2])\n\n\tNode 0 (n1), 2 task(s): 0 1 \n\tNode 1 (n2), 1 task(s): 2 \n", stderr: "", code: 0,
    });
  });

  it.skipIf(!isRoot() || !ensureUser("spurattach"))("another user sees no tasks (oracle: 'Node n1: no tasks running', exit 0)", () => {
    const r = c.run(["sattach", `${job}.0`], { user: "spurattach" });
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n").filter(Boolean).sort()).toEqual(["sattach: Node n1: no tasks running", "sattach: Node n2: no tasks running"]);
    expect(r.code).toBe(0);
  });
});

describe("sattach's stdin", () => {
  it("reaches every task that reads stdin, and its end closes theirs (oracle: got:hello twice, then eof)", async () => {
    // srun's own stdin stays open (never written, never closed): only sattach feeds the tasks
    const srun = spawn(BIN, ["srun", "-J", "att-in", "-n2", "bash", "-c", 'while read -r l; do echo "got:$l"; done; echo eof'], {
      env: c.env, cwd: c.work, stdio: ["pipe", "ignore", "ignore"],
    });
    try {
      const id = await eventually("srun's job", () => c.run(["squeue", "-h", "-t", "R", "-n", "att-in", "-o", "%i"]).stdout.trim() || undefined, 30_000);
      await eventually("its step", () => (c.run(["squeue", "-s", "-h", "-j", id, "-o", "%i"]).stdout.includes(`${id}.0`) ? true : undefined));
      const r = c.run(["sattach", `${id}.0`], { input: "hello\n" });
      expect(r.code).toBe(0);
      expect(r.stdout.split("\n").filter(Boolean).sort()).toEqual(["eof", "eof", "got:hello", "got:hello"]);
    } finally {
      srun.stdin.destroy();
      srun.kill();
    }
  });
});

describe("sattach's refusals", () => {
  const usage = "Usage: sattach [options] <jobid.stepid>\n";
  it("no step, no job, a step that does not exist", () => {
    expect(c.run(["sattach"])).toEqual({ stdout: usage, stderr: "sattach: error: too many parameters\n", code: 1 });
    expect(c.run(["sattach", job])).toEqual({ stdout: usage, stderr: "sattach: error: Failed to parse stepid from command line options\n", code: 1 });
    expect(c.run(["sattach", "999999.0"])).toEqual({ stdout: "", stderr: "sattach: error: Could not get job step info: Invalid job id specified\n", code: 1 });
    expect(c.run(["sattach", `${job}.5`])).toEqual({ stdout: "", stderr: "sattach: error: Could not get job step info: Invalid job id specified\n", code: 1 });
  });

  it("ends with the step", async () => {
    const p = spawn(BIN, ["sattach", `${job}.0`], { env: c.env, stdio: ["ignore", "pipe", "ignore"] });
    let code: number | null | undefined;
    let out = "";
    p.stdout.on("data", (b: Buffer) => (out += b.toString()));
    p.on("exit", (rc) => (code = rc));
    await eventually("sattach attached", () => (out.includes("t0-a") ? true : undefined));
    writeFileSync(join(dir, "stop"), "");
    expect(await eventually("sattach ended", () => (code === undefined ? undefined : code), 30_000)).toBe(0);
  });
});
