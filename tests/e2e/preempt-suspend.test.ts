/**
 * End-to-end: PreemptMode=SUSPEND and scontrol suspend/resume on a real local
 * cluster. A higher-tier job suspends a running one (its processes stop: a
 * file it appends to stops growing), runs on its CPUs, and when it ends the
 * suspended job runs on. An administrator then suspends it, and cancels it
 * while suspended: it still ends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { eventually, jobState, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "1", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
  c.reconfigure("PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND\nPartitionName=high Nodes=ALL PriorityTier=2\n");
});
afterAll(() => c?.down());

const sbatch = (args: string[]): string => {
  const r = c.run(["sbatch", "--parsable", ...args]);
  expect(r.stderr).toBe("");
  return r.stdout.trim();
};
const stateOf = (id: string): string => c.run(["squeue", "-h", "-j", id, "-o", "%T"]).stdout.trim();
const sizeOf = (path: string): number => (existsSync(path) ? statSync(path).size : 0);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("PreemptMode=SUSPEND", () => {
  it("suspends a lower-tier job for a higher-tier one and resumes it afterwards", { timeout: 150_000 }, async () => {
    const ticks = join(c.work, "ticks");
    c.write("low.sh", `#!/bin/bash\nwhile true; do echo x >> ${ticks}; sleep 0.2; done\n`);
    const low = sbatch(["-n2", "-t", "10", "--mem=500", "low.sh"]);
    await eventually("low job ticking", () => (stateOf(low) === "RUNNING" && sizeOf(ticks) > 0 ? true : undefined), 60_000);
    const high = sbatch(["-p", "high", "-n2", "-t", "5", "--mem=500", "--wrap", "sleep 6"]);
    await eventually("preemptor running", () => (stateOf(high) === "RUNNING" ? true : undefined), 60_000);
    expect(stateOf(low)).toBe("SUSPENDED");
    // Stopped (the SIGSTOP may still be in flight under load): the file stops growing and stays so.
    const stopped = await eventually("victim stopped", () => {
      const before = sizeOf(ticks);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 800);
      return sizeOf(ticks) === before ? before : undefined;
    }, 20_000);
    await pause(1500);
    expect(sizeOf(ticks)).toBe(stopped);
    expect(stateOf(low)).toBe("SUSPENDED");
    await eventually("preemptor done", () => (jobState(c, high) === "COMPLETED" ? true : undefined), 60_000);
    await eventually("low job resumed", () => (stateOf(low) === "RUNNING" ? true : undefined), 30_000);
    await eventually("low job ticking again", () => (sizeOf(ticks) > stopped ? true : undefined), 10_000);

    // An administrator's suspend and resume.
    expect(c.run(["scontrol", "suspend", low]).code).toBe(0);
    expect(stateOf(low)).toBe("SUSPENDED");
    expect(c.run(["scontrol", "resume", low]).code).toBe(0);
    expect(stateOf(low)).toBe("RUNNING");
    // Cancelled while suspended: it still ends.
    expect(c.run(["scontrol", "suspend", low]).code).toBe(0);
    c.run(["scancel", low]);
    await eventually("suspended job cancelled", () => (jobState(c, low) === "CANCELLED" ? true : undefined), 60_000);
  });
});
