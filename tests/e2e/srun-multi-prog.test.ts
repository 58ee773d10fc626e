/**
 * End-to-end: `srun --multi-prog FILE` (issue 19, part 2) on the real binary:
 * each task runs its line's program with %t/%o replaced, srun's extra arguments
 * appended; the file's errors are srun's lines, before anything is allocated.
 * Expected texts were recorded on the Slurm 22.05 oracle (2026-12-04).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "4", "--mem-per-node", "4000"]);
});
afterAll(() => c?.down());

/** A fresh directory with `files` in it. */
function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(c.work, "mp-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const sorted = (out: string) => out.split("\n").filter(Boolean).sort();

describe("srun --multi-prog", () => {
  it("runs each task's line, %t the task id, %o its offset in the line's ranks, across nodes", () => {
    const cwd = dirWith({ "mp.conf": "# a comment\n0 echo zero %t %o\n1-3 echo r %t %o\n" });
    const r = c.run(["srun", "-N2", "-n4", "-l", "--multi-prog", "mp.conf"], { cwd });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(sorted(r.stdout)).toEqual(["0: zero 0 0", "1: r 1 0", "2: r 2 1", "3: r 3 2"]);
  });

  it("without -n the file gives the task count; extra arguments follow every line's", () => {
    const cwd = dirWith({ "mp.conf": "1,3 echo odd %t %o\n0,2 echo even %t %o\n" });
    const r = c.run(["srun", "-l", "--multi-prog", "mp.conf", "extra1"], { cwd });
    expect(r.code).toBe(0);
    expect(sorted(r.stdout)).toEqual(["0: even 0 0 extra1", "1: odd 1 0 extra1", "2: even 2 1 extra1", "3: odd 3 1 extra1"]);
  });

  it("single quotes, backslashes and `*` as Slurm reads them (oracle: `all 0 q %t a b  end`)", () => {
    const cwd = dirWith({ "mp.conf": "* echo all %t 'q %t' a\\ b %x end\n" });
    const r = c.run(["srun", "-n2", "-l", "--multi-prog", "mp.conf"], { cwd });
    expect(sorted(r.stdout)).toEqual(["0: all 0 q %t a b  end", "1: all 1 q %t a b  end"]);
  });

  it("a task no line names, a bad line, a task twice, a missing file: srun's errors, exit 1, nothing allocated", () => {
    const cwd = dirWith({ "a.conf": "0 echo zero\n1-2 echo r\n", "b.conf": "0 echo zero\n1\n", "c.conf": "0-1 echo a\n1 echo b\n", "d.conf": "1-2x echo a\n" });
    expect(c.run(["srun", "-n4", "--multi-prog", "a.conf"], { cwd })).toEqual({ stdout: "", stderr: "srun: error: Configuration file a.conf invalid, no record for task id 3\n", code: 1 });
    expect(c.run(["srun", "-n2", "--multi-prog", "b.conf"], { cwd }).stderr).toBe("srun: error: Line 2 of configuration file b.conf invalid\n");
    expect(c.run(["srun", "-n2", "--multi-prog", "c.conf"], { cwd }).stderr).toBe("srun: error: Duplicate record for task 1\nsrun: error: Line 2 of configuration file c.conf invalid\n");
    expect(c.run(["srun", "-n3", "--multi-prog", "d.conf"], { cwd }).stderr).toBe("srun: error: Invalid task range specification\nsrun: error: Line 1 of configuration file d.conf invalid\n");
    const missing = c.run(["srun", "-n2", "--multi-prog", "nosuch.conf"], { cwd });
    expect(missing).toEqual({ stdout: "", stderr: "srun: error: Could not open multi_prog config file nosuch.conf\n", code: 1 });
    // an allocation would be named after the command, the file (srun's jobs are named so)
    const names = c.run(["sacct", "-n", "-X", "-P", "-o", "JobName"]).stdout.split("\n");
    expect(names.filter((n) => ["a.conf", "b.conf", "c.conf", "d.conf", "nosuch.conf"].includes(n))).toEqual([]);
  });

  it("a line slurmstepd cannot read fails that task with its error and exit 2 (oracle: an unclosed quote)", () => {
    const cwd = dirWith({ "mp.conf": "0 echo 'unclosed\n" });
    const r = c.run(["srun", "-n1", "--multi-prog", "mp.conf"], { cwd });
    expect(r.stderr).toContain("slurmstepd-n1: error: No executable program specified for this task\n");
    expect(r.stderr).toContain("srun: error: n1: task 0: Exited with exit code 2\n");
    expect(r.code).toBe(2);
  });

  it("inside a job the allocation's task count is fixed (oracle: sbatch -n3)", () => {
    const cwd = dirWith({ "four.conf": "0-3 echo a %t\n", "two.conf": "0-1 echo a %t\n" });
    const r = c.run(["sbatch", "--wait", "-n3", "-o", "out", "--wrap",
      "srun --multi-prog four.conf; echo rc=$?; srun --multi-prog two.conf; echo rc=$?; srun -n2 -l --multi-prog two.conf; echo rc=$?"], { cwd });
    expect(r.code).toBe(0);
    const out = readFileSync(join(cwd, "out"), "utf8").split("\n");
    expect(out.slice(0, 5)).toEqual([
      "srun: error: Invalid task id, 3 >= ntasks", "srun: error: Line 1 of configuration file four.conf invalid", "rc=1",
      "srun: error: Configuration file two.conf invalid, no record for task id 2", "rc=1",
    ]);
    expect(out.slice(5, 7).sort()).toEqual(["0: a 0", "1: a 1"]);
    expect(out.slice(7)).toEqual(["rc=0", ""]);
  });
});
