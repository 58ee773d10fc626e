/**
 * A job's allocation records the type of the GPUs it holds on each node, from the node's GRES
 * when the job starts: squeue --json and GET jobs gres_detail and scontrol -d's GRES= name the
 * GPUs by it whatever the request named (oracle 22.05, golden 055: --gres=gpu:2 on mi300x nodes
 * shows gres_detail gpu:mi300x:2(IDX:0-1)). Untyped GPUs and a share of two types record "".
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { gresDetailOf } from "../../../src/compat/format/job-values.ts";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import { formatArrayTasks } from "../../../src/compat/array-spec.ts";
import { cluster, spec, submit } from "./builders.ts";

const CONF = `ClusterName=test
DefMemPerCPU=256
NodeName=typed CPUs=8 RealMemory=8000 Gres=gpu:mi300x:4 Port=17101
NodeName=plain CPUs=8 RealMemory=8000 Gres=gpu:2 Port=17102
NodeName=mixed CPUs=8 RealMemory=8000 Gres=gpu:a100:2,gpu:t4:1 Port=17103
PartitionName=gpu Nodes=typed,plain,mixed Default=YES MaxTime=60
`;

function started(nodelist: string, over: Parameters<typeof spec>[0]) {
  const c = cluster(CONF);
  const id = c.run(submit(spec({ nodelist, ...over }))).ids[0] as number;
  const r = schedule(c.state, 20);
  if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: 20, decisions: r.decisions });
  const info = c.state.jobs.get(id)?.info;
  expect(info?.state).toBe("RUNNING");
  return info!;
}

describe("the type of the GPUs held", () => {
  it("is the node's for an untyped request, and gres_detail and scontrol -d name it", () => {
    const job = started("typed", { gresPerNode: [{ name: "gpu", type: "", count: 2 }] });
    expect(job.alloc.map((a) => [a.node, a.gpuIndices, a.gpuType])).toEqual([["typed", [0, 1], "mi300x"]]);
    expect(gresDetailOf(job, (held) => formatArrayTasks(held, 0, 0))).toEqual(["gpu:mi300x:2(IDX:0-1)"]);
    expect(formatJobRecord(job, { now: 30, oneLiner: false, detail: true })).toContain("\n   JOB_GRES=gpu:mi300x:2\n     Nodes=typed CPU_IDs=0 Mem=256 GRES=gpu:mi300x:2(IDX:0-1)\n");
  });

  it("is the type of the indices held on a node of two types, asked by type or not", () => {
    expect(started("mixed", { gresPerNode: [{ name: "gpu", type: "t4", count: 1 }] }).alloc[0]?.gpuType).toBe("t4");
    expect(started("mixed", { gresPerNode: [{ name: "gpu", type: "", count: 2 }] }).alloc[0]?.gpuType).toBe("a100");
    // all three: of two types, recorded as none (shown untyped, or with the request's type)
    const both = started("mixed", { gresPerNode: [{ name: "gpu", type: "", count: 3 }] });
    expect(both.alloc[0]?.gpuType).toBe("");
    expect(gresDetailOf(both, (held) => formatArrayTasks(held, 0, 0))).toEqual(["gpu:3(IDX:0-2)"]);
  });

  it("is empty on untyped GPUs and absent without GPUs", () => {
    const plain = started("plain", { gresPerNode: [{ name: "gpu", type: "", count: 1 }] });
    expect(plain.alloc[0]?.gpuType).toBe("");
    expect(gresDetailOf(plain, (held) => formatArrayTasks(held, 0, 0))).toEqual(["gpu:1(IDX:0)"]);
    const cpuOnly = started("typed", {});
    expect(cpuOnly.alloc[0]).not.toHaveProperty("gpuType");
    expect(gresDetailOf(cpuOnly, (held) => formatArrayTasks(held, 0, 0))).toEqual([]);
  });

  it("a record from before the type was kept shows the request's type", () => {
    const job = started("typed", { gresPerNode: [{ name: "gpu", type: "mi300x", count: 1 }] });
    const old = { ...job, alloc: job.alloc.map(({ gpuType: _t, ...a }) => a) };
    expect(gresDetailOf(old, (held) => formatArrayTasks(held, 0, 0))).toEqual(["gpu:mi300x:1(IDX:0)"]);
    const untypedOld = { ...old, tresPerNode: "gres/gpu:1" };
    expect(gresDetailOf(untypedOld, (held) => formatArrayTasks(held, 0, 0))).toEqual(["gpu:1(IDX:0)"]);
  });
});
