/**
 * The scheduler with GPU locality registered by the node (gpuCpus): CPUs are
 * charged per socket, --gres-flags=enforce-binding keeps a job pending (reason
 * Resources) while its GPUs' sockets lack free CPUs, and a job without the
 * flag still runs there. Raft snapshots keep the per-socket charges.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { freeSocketCpus } from "../../../src/sched/model/resources.ts";
import { cluster, spec, submit } from "./builders.ts";
import { encodeSnapshot, restoreSnapshot } from "../../../src/ctld/state-snapshot.ts";

const CONF = `ClusterName=t
NodeName=g1 CPUs=16 Sockets=2 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=16000 Gres=gpu:h100:4
PartitionName=gpu Nodes=g1 Default=YES MaxTime=INFINITE
`;

/** g1 registers GPUs 0-1 on socket 0 (CPUs 0-7) and 2-3 on socket 1 (CPUs 8-15). */
function scene() {
  const c = cluster(CONF, false);
  const node = c.state.nodes.get("g1")!;
  c.run({ v: 1, type: "registerNode", at: 1, node: { ...node.info, addr: "127.0.0.1", gpuCpus: "0-7;0-7;8-15;8-15" }, runningJobIds: [] });
  return c;
}

function startAll(c: ReturnType<typeof cluster>, at: number) {
  const r = schedule(c.state, at);
  if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at, decisions: r.decisions });
  return r;
}

describe("GPU sockets in the scheduler", () => {
  it("charges a job's CPUs to the socket of its GPUs", () => {
    const c = scene();
    c.run(submit(spec({ ntasks: 4, gpusPerNode: "1", memPerNodeMib: 100 }), 10));
    const r = startAll(c, 10);
    expect(r.decisions[0]?.alloc.map((a) => [a.gpuIndices, a.socketCpus])).toEqual([[[0], "4,0"]]);
    expect(freeSocketCpus(c.state.nodes.get("g1")!)).toEqual([4, 8]);
  });

  /** GPUs 0-1 and 4 CPUs of socket 0 held, then a CPU-only job fills socket 1: the free GPUs (2-3) have no CPUs beside them. */
  function fullSocketOne() {
    const c = scene();
    c.run(submit(spec({ ntasks: 4, gpusPerNode: "2", memPerNodeMib: 100, gresFlags: "enforce-binding" }), 10));
    startAll(c, 10);
    c.run(submit(spec({ ntasks: 8, memPerNodeMib: 100 }), 11));
    startAll(c, 11);
    expect(freeSocketCpus(c.state.nodes.get("g1")!)).toEqual([4, 0]);
    return c;
  }

  it("enforce-binding waits (Resources) while the free GPUs' socket has no free CPUs", () => {
    const c = fullSocketOne();
    c.run(submit(spec({ ntasks: 1, gpusPerNode: "1", memPerNodeMib: 100, gresFlags: "enforce-binding" }), 12));
    const r = startAll(c, 12);
    expect(r.decisions).toEqual([]);
    expect(r.reasons.get(3)).toBe("Resources");
  });

  it("without the flag the same job runs, its CPU on the other socket", () => {
    const c = fullSocketOne();
    c.run(submit(spec({ ntasks: 1, gpusPerNode: "1", memPerNodeMib: 100 }), 12));
    const r = startAll(c, 12);
    expect(r.decisions.map((d) => [d.jobId, d.alloc[0]?.gpuIndices, d.alloc[0]?.socketCpus])).toEqual([[3, [2], "1,0"]]);
  });

  it("--gpus-per-socket=1 --sockets-per-node=2 takes a GPU on each socket", () => {
    const c = scene();
    c.run(submit(spec({ ntasks: 2, gpusPerSocket: "1", socketsPerNode: 2, memPerNodeMib: 100 }), 10));
    const r = startAll(c, 10);
    expect(r.decisions[0]?.alloc.map((a) => [a.gpuIndices, a.socketCpus])).toEqual([[[0, 2], "1,1"]]);
  });

  it("a pending --gpus-per-socket job is planned for when its GPUs are released; a job that leaves them free backfills", () => {
    const c = scene();
    c.run(submit(spec({ ntasks: 1, gpusPerNode: "3", memPerNodeMib: 100, timeLimitMin: 10 }), 10));
    startAll(c, 10); // one GPU left
    c.run(submit(spec({ ntasks: 2, gpusPerSocket: "1", socketsPerNode: 2, memPerNodeMib: 100, timeLimitMin: 10 }), 11));
    c.run(submit(spec({ ntasks: 1, gpusPerNode: "1", memPerNodeMib: 100, timeLimitMin: 30 }), 12));
    const r = startAll(c, 12);
    // Job 1's three GPUs free at 610 are enough for job 2: the last GPU can go to job 3 now.
    expect(r.decisions.map((d) => d.jobId)).toEqual([3]);
    expect(r.reasons.get(2)).toBe("Resources");
    expect(r.reservations.find((x) => x.jobId === 2)?.startTime).toBeGreaterThanOrEqual(610);
  });

  it("snapshots keep the per-socket charges", () => {
    const c = scene();
    c.run(submit(spec({ ntasks: 2, gpusPerNode: "1", memPerNodeMib: 100 }), 10));
    startAll(c, 10);
    const restored = scene().state;
    restoreSnapshot(restored, encodeSnapshot(c.state, 7));
    expect(restored.nodes.get("g1")!.socketCpusByJob).toEqual({ "1": [2, 0] });
    expect(restored.nodes.get("g1")!.cpuIdsByJob).toEqual({ "1": [0, 1] });
    expect(restored.jobs.get(1)?.info.alloc[0]?.cpuIds).toBe("0-1");
    expect(freeSocketCpus(restored.nodes.get("g1")!)).toEqual([6, 8]);
  });
});
