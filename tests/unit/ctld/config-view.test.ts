/**
 * `scontrol show config` entries (ctld/config-view): Slurm's key order (golden
 * 022) for the settings Spur has, values from the configuration in force.
 */
import { describe, expect, it } from "vitest";
import { configEntries } from "../../../src/ctld/config-view.ts";
import { loadGolden } from "../sacct-scontrol/helpers.ts";
import { cluster } from "../sched/builders.ts";

describe("scontrol show config entries", () => {
  it("follow Slurm's order and carry the configured values", () => {
    const c = cluster(`ClusterName=oracle
DefMemPerCPU=256
DependencyParameters=kill_invalid_depend
NodeName=n[1-2] CPUs=4 RealMemory=4000 Gres=gpu:mi300x:8
PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=INFINITE
`);
    const e = configEntries(c.state, { controllerName: "vm", confPath: "/etc/spur.conf", startedAt: 1_700_000_000, selfUid: 0 });
    const golden = loadGolden("022").stdout.split("\n").map((l) => /^(\S+)\s*= /.exec(l)?.[1]).filter((k): k is string => k !== undefined)
      .map((k) => (k === "SlurmctldHost[0]" ? "SlurmctldHost" : k));
    const keys = Object.keys(e);
    expect(keys.filter((k) => !golden.includes(k))).toEqual([]);
    expect(keys).toEqual(golden.filter((k) => keys.includes(k)));
    expect(e).toMatchObject({
      ClusterName: "oracle", DefMemPerCPU: "256", DependencyParameters: "kill_invalid_depend", GresTypes: "gpu",
      AcctGatherNodeFreq: "0 sec", SchedulerTimeSlice: "30 sec", MaxNodeCount: "2", SlurmUser: "root(0)", NEXT_JOB_ID: String(c.state.nextJobId),
    });
    expect(keys.length).toBeGreaterThan(35);
  });
});
