/**
 * `srun -v` against the oracle's stderr (tests/fixtures/oracle-surface/srun-v-N2-n3.txt, recorded
 * from `/usr/bin/srun -v -N2 -n3 -p debug -t 5 -J foo -l true`): the defined-options dump, the
 * `jobid N:` line harnesses take the job id from, and the per-node launching lines.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { definedOptionsDump, jobidLine, launchingLines } from "../../../src/compat/options/srun-verbose.ts";

const oracle = readFileSync(resolve(__dirname, "../../fixtures/oracle-surface/srun-v-N2-n3.txt"), "utf8")
  .split("\n")
  .filter((l) => l !== "" && !/^srun: (launch\/slurm|route\/default):/.test(l));

describe("srun -v", () => {
  it("prints the oracle's lines for -v -N2 -n3 -p debug -t 5 -J foo -l", () => {
    const ours = definedOptionsDump(["-v", "-N2", "-n3", "-p", "debug", "-t", "5", "-J", "foo", "-l"], {}) +
      jobidLine(1635, [{ node: "n1", cpus: 2 }, { node: "n2", cpus: 1 }]) +
      launchingLines(1635, 0, [{ node: "n1", taskIds: [0, 1] }, { node: "n2", taskIds: [2] }]);
    expect(ours.split("\n").filter((l) => l !== "")).toEqual(oracle);
  });

  it("the job id is where harnesses look for it; options from SLURM_* inputs are listed; -vv counts", () => {
    expect(/srun: jobid (\d+):/.exec(jobidLine(77, [{ node: "n3", cpus: 4 }]))?.[1]).toBe("77");
    expect(jobidLine(5, [{ node: "n1", cpus: 1 }, { node: "n2", cpus: 1 }])).toBe("srun: jobid 5: nodes(2):`n[1-2]', cpu counts: 1(x2)\n");
    const dump = definedOptionsDump(["-vv", "--exclusive"], { SLURM_NTASKS: "2" });
    expect(dump).toContain("srun: ntasks              : 2\n");
    expect(dump).toContain("srun: verbose             : 2\n");
    expect(launchingLines(9, 1, [{ node: "n1", taskIds: [0, 2] }])).toBe("srun: launching StepId=9.1 on host n1, 2 tasks: [0,2]\n");
  });
});
