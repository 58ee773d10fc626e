/**
 * End-to-end: `--signal` is delivered TIME seconds before the time limit.
 * `B:USR1@50` with a 1-minute limit reaches the batch shell about 10 s after
 * the start (the script's trap writes a file and ends the job); the plain
 * form `USR1@50` reaches the job's step (an srun inside the script) and not
 * the batch shell.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, jobState, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "1", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
});
afterAll(() => c?.down());

const sbatch = (args: string[]): string => {
  const r = c.run(["sbatch", "--parsable", ...args]);
  expect(r.stderr).toBe("");
  return r.stdout.trim();
};

describe("--signal before the time limit", () => {
  it("B: signals the batch shell; the plain form signals the steps only", { timeout: 120_000 }, async () => {
    const shellMark = join(c.work, "b-shell.txt");
    c.write(
      "b.sh",
      `#!/bin/bash\ntrap 'date +%s > ${shellMark}; exit 0' USR1\nfor i in $(seq 1 100); do sleep 1; done\n`,
    );
    const stepMark = join(c.work, "plain-step.txt");
    const plainShellMark = join(c.work, "plain-shell.txt");
    c.write(
      "plain.sh",
      `#!/bin/bash\ntrap 'echo got > ${plainShellMark}' USR1\n` +
        `srun -n1 bash -c 'trap "date +%s > ${stepMark}; exit 0" USR1; for i in $(seq 1 100); do sleep 1; done'\n` +
        `echo "step ended $?"\n`,
    );
    const b = sbatch(["-n1", "--time=1", "--signal=B:USR1@50", "b.sh"]);
    const plain = sbatch(["-n1", "--time=1", "--signal=USR1@50", "plain.sh"]);
    await eventually("B: job ended", () => (["COMPLETED", "FAILED", "TIMEOUT", "CANCELLED"].includes(jobState(c, b)) ? true : undefined), 100_000);
    await eventually("plain job ended", () => (["COMPLETED", "FAILED", "TIMEOUT", "CANCELLED"].includes(jobState(c, plain)) ? true : undefined), 100_000);
    // Ended by the trap (COMPLETED), well before the 60 s limit would have ended it (TIMEOUT).
    expect(jobState(c, b)).toBe("COMPLETED");
    expect(existsSync(shellMark)).toBe(true);
    expect(jobState(c, plain)).toBe("COMPLETED");
    expect(existsSync(stepMark)).toBe(true);
    expect(existsSync(plainShellMark)).toBe(false);
    const out = readFileSync(join(c.work, `slurm-${plain}.out`), "utf8");
    expect(out).toContain("step ended 0");
  });
});
