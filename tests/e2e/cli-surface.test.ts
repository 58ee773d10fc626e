/**
 * End-to-end (issue 21): the everyday command surface of the compiled binary as a Slurm
 * harness drives it. Every Slurm-named link answers -V with the Slurm release Spur follows;
 * a closed pipe ends a command quietly (status 141, as SIGPIPE); scancel J.S cancels one
 * step and leaves the job running; scancel -s STOP shows ST; scontrol options and --json
 * anywhere on the line; srun -v prints `srun: jobid N:`; sinfo --helpstate; show config keys.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startCluster, eventually, jobState, type Cluster } from "./cluster.ts";
import { LINK_NAMES } from "../../src/main-names.ts";

let c: Cluster;

beforeAll(async () => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "4", "--mem-per-node", "2000"]);
  await eventually("controller answering", () => (c.run(["sinfo"]).code === 0 ? true : undefined), 60_000);
});
afterAll(() => c?.down());

const SLURM_NAMED = LINK_NAMES.filter((n) => !n.startsWith("spur"));

describe("versions and closed pipes", () => {
  it("-V and --version of every Slurm-named command print 'slurm 26.05.0'; spur version keeps Spur's own", () => {
    for (const name of SLURM_NAMED) {
      for (const flag of ["-V", "--version"]) {
        const r = spawnSync(join(c.dir, "bin", name), [flag], { env: c.env, encoding: "utf8" });
        expect([name, flag, r.stdout, r.status]).toEqual([name, flag, "slurm 26.05.0\n", 0]);
      }
    }
    expect(c.run(["version"]).stdout).toMatch(/^spur \d+\.\d+\.\d+/);
  });

  it("reads no .env or bunfig.toml from the working directory (Bun's executables do by default; Slurm's commands do not)", () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-dotenv-"));
    try {
      writeFileSync(join(dir, ".env"), "SBATCH_JOB_NAME=from-dotenv\nSBATCH_HOLD=1\n");
      writeFileSync(join(dir, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
      writeFileSync(join(dir, "preload.ts"), 'console.log("preloaded");\n');
      const r = spawnSync(join(c.dir, "bin", "sbatch"), ["--parsable", "--hold", "--wrap", "true"], { cwd: dir, env: c.env, encoding: "utf8" });
      expect([r.status, r.stderr]).toEqual([0, ""]);
      const id = r.stdout.trim();
      expect(id).toMatch(/^\d+$/);
      expect(c.run(["squeue", "-h", "-j", id, "-o", "%j"]).stdout).toBe("wrap\n");
      c.run(["scancel", id]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a reader that went away ends squeue, sinfo, sbatch --help quietly with SIGPIPE's status, no stack trace", () => {
    for (const cmd of [["squeue"], ["sinfo", "-N", "-l"], ["sbatch", "--help"], ["srun", "--help"]]) {
      // `true` has exited (the pipe has no reader) before the command writes
      const script = 'set -o pipefail; (sleep 0.3; exec "$@") | true; echo "status=$?"';
      const r = spawnSync("bash", ["-c", script, "pipe", join(c.dir, "bin", cmd[0] as string), ...cmd.slice(1)], { env: c.env, encoding: "utf8" });
      expect([cmd.join(" "), r.stdout, r.stderr]).toEqual([cmd.join(" "), "status=141\n", ""]);
    }
  });
});

describe("scancel J.S and STOPPED", () => {
  it("cancels one step: the job and its other step go on; the step is CANCELLED; unknown steps fail as on the oracle", async () => {
    const sub = c.run(["sbatch", "--parsable", "-N1", "-n2", "--wrap", "srun -n1 --exact sleep 120 & srun -n1 --exact sleep 120 & wait"]);
    expect(sub.code, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    await eventually("two steps running", () => {
      const steps = c.run(["squeue", "-h", "-s", "-j", id, "-o", "%i"]).stdout.split("\n").filter((l) => /^\d+\.\d+$/.test(l));
      return steps.length === 2 ? steps : undefined;
    }, 60_000);
    const r = c.run(["scancel", "-v", `${id}.0`]);
    expect([r.code, r.stderr]).toEqual([0, `scancel: Terminating step ${id}.0\n`]);
    await eventually("step 0 gone", () => {
      const steps = c.run(["squeue", "-h", "-s", "-j", id, "-o", "%i"]).stdout;
      return !steps.includes(`${id}.0\n`) && steps.includes(`${id}.1\n`) ? true : undefined;
    }, 30_000);
    expect(jobState(c, id)).toBe("RUNNING");
    const acct = c.run(["sacct", "-n", "-P", "-j", `${id}.0`, "-o", "jobid,state"]);
    expect(acct.stdout).toContain(`${id}.0|CANCELLED`);
    const unknown = c.run(["scancel", `${id}.7`]);
    expect([unknown.code, unknown.stderr]).toEqual([225, `scancel: error: Kill job error on job step id ${id}: Invalid job id specified\n`]);
    const stop = c.run(["scancel", "-s", "STOP", id]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(c.run(["squeue", "-h", "-j", id, "-o", "%t"]).stdout).toBe("ST\n");
    c.run(["scancel", "-s", "CONT", id]);
    expect(c.run(["squeue", "-h", "-j", id, "-o", "%t"]).stdout).toBe("R\n");
    c.run(["scancel", id]);
  });
});

describe("scontrol, sinfo, squeue, srun for harnesses", () => {
  it("options and --json anywhere: show job -o N, show part -o, -a show -o nodes, show job N --json", () => {
    const sub = c.run(["sbatch", "--parsable", "--hold", "--wrap", "true"]);
    const id = sub.stdout.trim();
    const one = c.run(["scontrol", "show", "job", "-o", id]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout.split("\n").filter((l) => l !== "")).toHaveLength(1);
    expect(c.run(["scontrol", "show", "part", "-o"]).stdout.split("\n").filter((l) => l !== "")).toHaveLength(1);
    expect(c.run(["scontrol", "-a", "show", "-o", "nodes"]).stdout.split("\n").filter((l) => l !== "")).toHaveLength(2);
    const json = JSON.parse(c.run(["scontrol", "show", "job", id, "--json"]).stdout) as { jobs: { job_id: number }[]; meta: { command: string[] } };
    expect(json.jobs.map((j) => j.job_id)).toEqual([Number(id)]);
    expect(json.meta.command).toEqual(["scontrol", "show", "job", id, "--json"]);
    const ping = JSON.parse(c.run(["scontrol", "--json", "ping"]).stdout) as { pings: { responding: boolean }[] };
    expect(ping.pings[0]?.responding).toBe(true);
    expect(JSON.parse(c.run(["squeue", "--json"]).stdout).meta.plugin.data_parser).toBe("data_parser/v0.0.45");
    expect(c.run(["squeue", "--only-job-state", "-j", id]).stdout).toBe(`             JOBID ST\n${id.padStart(18)} PD\n`);
    c.run(["scancel", id]);
  });

  it("srun -v prints the job id line harnesses parse; sinfo --helpstate; show config has Slurm's keys", () => {
    const r = c.run(["srun", "-v", "-N2", "-n2", "true"]);
    expect(r.code, r.stderr).toBe(0);
    const id = /^srun: jobid (\d+): nodes\(2\):`n\[1-2\]', cpu counts: /m.exec(r.stderr)?.[1];
    expect(id, r.stderr).toBeDefined();
    expect(r.stderr).toContain(`srun: launching StepId=${id}.0 on host n1, 1 tasks: 0\n`);
    expect(c.run(["sinfo", "--helpstate"]).stdout).toContain("REBOOT_ISSUED");
    expect(c.run(["sinfo", "-h", "-t", "idle&boot"]).code).toBe(0);
    const config = c.run(["scontrol", "show", "config"]).stdout;
    for (const key of ["SlurmctldHost[0]", "SlurmctldPort", "SlurmctldLogFile", "MaxTasksPerNode", "SlurmdUser"]) expect(config).toMatch(new RegExp(`^${key.replace(/[[\]]/g, "\\$&")}\\s+= \\S`, "m"));
    expect(config).toMatch(/^SlurmctldLogFile\s+= \S+spurctld\.log$/m);
  });

  it("update NodeName=ALL acts on every node; create reservation takes start=now", () => {
    const drain = c.run(["scontrol", "update", "nodename=ALL", "state=drain", "reason=maint"]);
    expect(drain.code, drain.stderr).toBe(0);
    expect(c.run(["sinfo", "-h", "-N", "-o", "%N %t"]).stdout).toBe("n1 drain\nn2 drain\n");
    expect(c.run(["scontrol", "update", "nodename=ALL", "state=resume"]).code).toBe(0);
    const resv = c.run(["scontrol", "create", "reservation", "reservationname=r1", "start=now", "duration=10", "nodes=n1", "users=root"]);
    expect([resv.code, resv.stderr]).toEqual([0, ""]);
    expect(c.run(["scontrol", "show", "res", "r1", "-o"]).stdout).toMatch(/^ReservationName=r1 /);
    c.run(["scontrol", "delete", "reservation=r1"]);
  });
});

describe("sgather", () => {
  it("copies SOURCE from every node of the job to DEST.NODENAME here, and removes it unless --keep", () => {
    // one host here: every node sees the same /tmp, so each node's SOURCE has the same bytes
    const script = c.write("gather.sh", [
      "#!/bin/sh",
      "src=/tmp/sgather-src-$SLURM_JOB_ID",
      'printf "line 1\\nline 2\\n" > $src',
      "sgather --keep $src $PWD/kept",
      "sgather $src $PWD/got",
      'test -e $src; echo "left=$?"',
      "sgather /nonexistent-$SLURM_JOB_ID $PWD/none; echo \"missing=$?\"",
      "",
    ].join("\n"));
    const r = c.run(["sbatch", "--wait", "-N2", "-o", "gather.out", script]);
    expect(r.code, r.stderr).toBe(0);
    const read = (name: string) => spawnSync("cat", [join(c.work, name)], { encoding: "utf8" }).stdout;
    expect([read("kept.n1"), read("kept.n2"), read("got.n1"), read("got.n2")]).toEqual(Array(4).fill("line 1\nline 2\n"));
    const out = read("gather.out");
    expect(out).toContain("left=1");
    expect(out).toMatch(/missing=[1-9]/);
    expect(out).toContain("No such file");
  });
});
