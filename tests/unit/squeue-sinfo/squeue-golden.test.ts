/**
 * squeue against the Slurm 22.05 oracle: each golden's argv runs on a
 * fixture that reproduces its ### setup, and stdout/stderr/exit code must
 * match byte for byte (the clock is set so TIME columns match exactly).
 */
import { describe, expect, it } from "vitest";
import { squeueMain } from "../../../src/cli/squeue.ts";
import { busyJobs, job } from "./fixtures.ts";
import { expected, fakePort, golden, type World } from "./golden.ts";

process.env.TZ = "UTC";

const run = async (prefix: string, world: World) => {
  const g = golden(prefix);
  const result = await squeueMain(g.argv, fakePort(world));
  return { g, result };
};

/** Golden number → controller clock (epoch seconds) at capture time. */
const BUSY_NOW: Record<string, number> = {
  "044": 1796214965, "045": 1796214965, "046": 1796214965, "047": 1796214966, "048": 1796214966,
  "049": 1796214966, "050": 1796214966, "051": 1796214966, "052": 1796214966, "053": 1796214967,
  "054": 1796214967, "070": 1796214968,
};

describe("squeue goldens on the busy cluster", () => {
  for (const [prefix, now] of Object.entries(BUSY_NOW)) {
    it(`matches golden ${prefix}`, async () => {
      const { g, result } = await run(prefix, { jobs: busyJobs(), now });
      expect(result).toEqual(expected(g));
    });
  }

  it("matches golden 077 (after scancel 17_2 and -n later)", async () => {
    const jobs = busyJobs().map((j) => {
      if (j.jobId === 19 || j.jobId === 23) return { ...j, state: "CANCELLED", endTime: 1796214968 };
      if (j.jobId === 21) return { ...j, reason: "Priority" };
      return j;
    });
    const { g, result } = await run("077", { jobs, now: 1796214970 });
    expect(result).toEqual(expected(g));
  });
});

describe("squeue goldens on other states", () => {
  it("matches golden 013 (no jobs)", async () => {
    const { g, result } = await run("013", { jobs: [], now: 1796214930 });
    expect(result).toEqual(expected(g));
  });

  it("matches golden 080 (DependencyNeverSatisfied)", async () => {
    const jobs = [
      job({ jobId: 25, name: "willfail", state: "FAILED", reason: "NonZeroExitCode", exitCode: 1 }),
      job({ jobId: 26, name: "needsok", reason: "DependencyNeverSatisfied", dependency: "afterok:25(failed)" }),
    ];
    const { g, result } = await run("080", { jobs, now: 1796215000 });
    expect(result).toEqual(expected(g));
  });

  it("matches golden 092 (PartitionConfig)", async () => {
    const jobs = [
      job({ jobId: 32, name: "toomanyn", reason: "PartitionConfig", numNodes: 5, priority: 11300 }),
      job({ jobId: 33, name: "toomanyt", reason: "PartitionConfig", numNodes: 25, numCpus: 100, priority: 12000 }),
    ];
    const { g, result } = await run("092", { jobs, now: 1796215100 });
    expect(result).toEqual(expected(g));
  });

  it("matches goldens 100 and 117 (bad options); 002's version line has the release Spur follows", async () => {
    for (const prefix of ["100", "117"]) {
      const { g, result } = await run(prefix, { jobs: [], now: 0 });
      expect(result).toEqual(expected(g));
    }
    const { g, result } = await run("002", { jobs: [], now: 0 });
    // golden: Debian's "slurm-wlm 22.05.8"; Spur: upstream's package word and the 26.x release it follows
    expect(g.stdout).toMatch(/^\S+ \d+\.\d+\.\d+\n$/);
    expect(result).toEqual({ ...expected(g), stdout: "slurm 26.05.0\n" });
  });
});
