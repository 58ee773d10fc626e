/**
 * End-to-end (issue 21): strigger on the compiled binary. A --down trigger's program runs on
 * the controller host when a node goes down, with the node list as its last argument, and
 * the trigger is then purged; a PERM --up trigger stays; a --fini trigger runs with the job
 * id when the job ends; --get prints Slurm's table; an ordinary user may not set node
 * triggers (Slurm's "Access/permission denied").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { startCluster, eventually, ensureUser, type Cluster } from "./cluster.ts";

let c: Cluster;
let program: string;
let record: string;

const HEADER = "TRIG_ID RES_TYPE   RES_ID TYPE                                OFFSET USER     FLAGS PROGRAM";
const recorded = (): string[] => (existsSync(record) ? readFileSync(record, "utf8").split("\n").filter(Boolean) : []);

beforeAll(async () => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2", "--mem-per-node", "1000"]);
  await eventually("controller answering", () => (c.run(["sinfo"]).code === 0 ? true : undefined), 60_000);
  record = join(c.work, "fired.txt");
  // each run appends its arguments (the trigger's own words, then the event's argument) and its uid
  program = c.write("record.sh", `#!/bin/sh\necho "$* uid=$(id -u)" >> ${record}\n`);
});
afterAll(() => c?.down());

describe("strigger", () => {
  it("runs a --down trigger's program when a node goes down, then purges it; a PERM --up trigger stays", async () => {
    const me = c.run(["strigger", "--set", "--node", "--down", `--program=${program} down`]);
    expect(me, me.stderr).toEqual({ stdout: "", stderr: "", code: 0 });
    expect(c.run(["strigger", "--set", "--node=n2", "--up", "--flags=PERM", `--program=${program} up`]).code).toBe(0);
    const user = spawnSync("id", ["-un"], { encoding: "utf8" }).stdout.trim();
    expect(c.run(["strigger", "--get"]).stdout).toBe(
      [
        HEADER,
        `      1 node            * down                                     0 ${user.padEnd(8)}       ${program} down`,
        `      2 node           n2 up                                       0 ${user.padEnd(8)} PERM  ${program} up`,
        "",
      ].join("\n"),
    );
    const down = c.run(["scontrol", "update", "nodename=n2", "state=down", "reason=strigger-test"]);
    expect(down.code, down.stderr).toBe(0);
    await eventually("the down trigger ran", () => (recorded().some((l) => l.startsWith("down n2 ")) ? true : undefined), 30_000);
    expect(recorded()[0]).toBe(`down n2 uid=${process.getuid?.() ?? 0}`);
    expect(c.run(["strigger", "--get", "-N"]).stdout.split("\n").filter(Boolean).map((l) => l.trim().split(/\s+/)[0])).toEqual(["2"]);
    expect(c.run(["scontrol", "update", "nodename=n2", "state=resume"]).code).toBe(0);
    await eventually("the up trigger ran", () => (recorded().some((l) => l.startsWith("up n2 ")) ? true : undefined), 30_000);
    expect(c.run(["strigger", "--get", "-N", "--id=2"]).stdout).toContain(" PERM ");
    expect(c.run(["strigger", "--clear", "--id=2"]).code).toBe(0);
    expect(c.run(["strigger", "--get"]).stdout).toBe("");
  });

  it("runs a --fini trigger's program with the job id when the job ends", async () => {
    const sub = c.run(["sbatch", "--parsable", "-J", "trig-fini", "--wrap", "sleep 2"]);
    expect(sub.code, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    const set = c.run(["strigger", "--set", `--jobid=${id}`, "--fini", `--program=${program} fini`]);
    expect(set, set.stderr).toEqual({ stdout: "", stderr: "", code: 0 });
    expect(c.run(["strigger", "--get", "-N", `--jobid=${id}`]).stdout).toMatch(new RegExp(`^      \\d job +${id} fini `));
    await eventually("the fini trigger ran", () => (recorded().some((l) => l.startsWith(`fini ${id} `)) ? true : undefined), 60_000);
    expect(c.run(["strigger", "--get", `--jobid=${id}`]).stdout).toBe("");
  });

  it("refuses what Slurm refuses: an unknown job, a duplicate, a clear of nothing; -Q quiets the clear", () => {
    expect(c.run(["strigger", "--set", "--jobid=99999", "--fini", `--program=${program}`])).toEqual({
      stdout: "", stderr: "slurm_set_trigger: Invalid job id specified\n", code: 1,
    });
    expect(c.run(["strigger", "--set", "--node=n1", "--drained", `--program=${program}`]).code).toBe(0);
    expect(c.run(["strigger", "--set", "--node=n1", "--drained", `--program=${program}`]).stderr).toBe("slurm_set_trigger: Duplicate event trigger\n");
    expect(c.run(["strigger", "--clear", "--id=999"])).toEqual({ stdout: "", stderr: "slurm_clear_trigger: No such process\n", code: 1 });
    expect(c.run(["strigger", "--clear", "-Q", "--id=999"])).toEqual({ stdout: "", stderr: "", code: 0 });
    expect(c.run(["strigger", "--set", "--node", "--down", "--program=/etc/passwd"]).stderr).toBe("slurm_set_trigger: Access/permission denied\n");
  });

  const user = "spurtest";
  it.runIf(ensureUser(user))("lets only root (or the controller's user) set node triggers", () => {
    const r = c.run(["strigger", "--set", "--node", "--down", `--program=${program}`], { user });
    expect(r).toEqual({ stdout: "", stderr: "slurm_set_trigger: Access/permission denied\n", code: 1 });
    const drained = c.run(["strigger", "--get", "-N", "--drained"]).stdout.trim().split(/\s+/)[0] ?? "";
    expect(drained).toMatch(/^\d+$/);
    expect(c.run(["strigger", "--clear", `--id=${drained}`], { user }).stderr).toBe("slurm_clear_trigger: Access/permission denied\n");
  });
});
