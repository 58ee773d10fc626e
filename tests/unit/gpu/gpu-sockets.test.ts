/**
 * Socket-aware GPU placement: GPU locality from local CPU lists,
 * --gres-flags=enforce-binding (CPUs only on the GPUs' sockets, else wait),
 * --gpus-per-socket with --sockets-per-node, and the NUMA preference without
 * flags (never a hard rule).
 */
import { describe, expect, it } from "vitest";
import { fitJob, withReleased, type NodeView } from "../../../src/sched/plan/fit-node.ts";
import type { ResourceRequest } from "../../../src/sched/plan/request.ts";
import { gpuSocketsOf } from "../../../src/compat/gpu-locality.ts";
import { placeOnSockets } from "../../../src/sched/plan/gpu-sockets.ts";

function req(over: Partial<ResourceRequest> = {}): ResourceRequest {
  return {
    nodesMin: 1, nodesMax: 1, ntasks: 1, ntasksPerNode: 0, cpusPerTask: 1, mem: { kind: "node", mib: 100 },
    gpusPerNode: 0, gpusTotal: 0, gpusPerTask: 0, gpuType: "", exclusive: false, nodelist: [], exclude: [], features: [],
    ...over,
  };
}

/** Two sockets of 8 CPUs; GPUs 0-1 on socket 0, 2-3 on socket 1. */
function view(name: string, freeBySocket: [number, number], over: Partial<NodeView> = {}): NodeView {
  const freeCpus = freeBySocket[0] + freeBySocket[1];
  return {
    name, cpus: 16, memMiB: 16000, gpuCount: 4, gpuModel: "h100", features: [], freeCpus, freeMemMiB: 16000,
    freeGpus: [0, 1, 2, 3], idle: freeCpus === 16, usable: true,
    sockets: { count: 2, gpuSocket: [0, 0, 1, 1], freeCpus: [...freeBySocket] }, ...over,
  };
}

const rules = (over: Partial<{ enforceBinding: boolean; gpusPerSocket: number; socketsPerNode: number }> = {}) => ({
  enforceBinding: false, gpusPerSocket: 0, socketsPerNode: 0, ...over,
});

describe("gpuSocketsOf", () => {
  it("puts each GPU on the socket holding most of its local CPUs", () => {
    expect(gpuSocketsOf(["0-7", "0-7", "8-15", "6-15"], 4, 16, 2)).toEqual([0, 0, 1, 1]);
  });
  it("marks GPUs without a CPU list (or with ids past the node's CPUs) as unknown", () => {
    expect(gpuSocketsOf(["", "40-47"], 2, 16, 2)).toEqual([-1, -1]);
  });
});

describe("placeOnSockets", () => {
  const layout = { count: 2, gpuSocket: [0, 0, 1, 1] };

  it("with enforce-binding counts CPUs only on the sockets of the chosen GPUs", () => {
    const pick = placeOnSockets(layout, [1, 8], undefined, [0, 1, 2, 3], 1, 4, rules({ enforceBinding: true }));
    expect(pick).toEqual({ gpuIndices: [2], socketCpus: [0, 4], quality: 0 });
  });

  it("with enforce-binding fails when no GPU's socket has the CPUs free", () => {
    expect(placeOnSockets(layout, [1, 8], undefined, [0, 1], 1, 4, rules({ enforceBinding: true }))).toBeUndefined();
  });

  it("without the flag prefers GPUs whose socket has the CPUs, and falls back to any GPU", () => {
    expect(placeOnSockets(layout, [1, 8], undefined, [0, 1, 2, 3], 1, 4, rules())?.gpuIndices).toEqual([2]);
    const fallback = placeOnSockets(layout, [1, 8], undefined, [0, 1], 1, 4, rules());
    expect(fallback).toEqual({ gpuIndices: [0], socketCpus: [1, 3], quality: 0 });
  });

  it("lets GPUs of unknown locality bind to any socket", () => {
    const unknown = { count: 2, gpuSocket: [-1, -1] };
    expect(placeOnSockets(unknown, [0, 8], undefined, [0, 1], 2, 8, rules({ enforceBinding: true }))).toEqual({ gpuIndices: [0, 1], socketCpus: [0, 8], quality: 0 });
  });

  it("--gpus-per-socket=1 --sockets-per-node=2 takes one GPU on each socket", () => {
    const pick = placeOnSockets(layout, [8, 8], undefined, [0, 1, 2, 3], 2, 4, rules({ gpusPerSocket: 1, socketsPerNode: 2 }));
    expect(pick?.gpuIndices).toEqual([0, 2]);
    expect(pick?.socketCpus.reduce((a, b) => a + b, 0)).toBe(4);
  });

  it("--gpus-per-socket=2 --sockets-per-node=1 needs a socket with two free GPUs", () => {
    expect(placeOnSockets(layout, [8, 8], undefined, [0, 2, 3], 2, 1, rules({ gpusPerSocket: 2, socketsPerNode: 1 }))?.gpuIndices).toEqual([2, 3]);
    expect(placeOnSockets(layout, [8, 8], undefined, [0, 2], 2, 1, rules({ gpusPerSocket: 2, socketsPerNode: 1 }))).toBeUndefined();
  });

  it("--gpus-per-socket on a node without GPU locality counts GPUs per node", () => {
    const unknown = { count: 2, gpuSocket: [-1, -1, -1, -1] };
    expect(placeOnSockets(unknown, [8, 8], undefined, [0, 1, 2, 3], 2, 2, rules({ gpusPerSocket: 1, socketsPerNode: 2 }))?.gpuIndices).toEqual([0, 1]);
  });

  it("never asks more sockets than the node has", () => {
    expect(placeOnSockets(layout, [8, 8], undefined, [0, 1, 2, 3], 3, 1, rules({ gpusPerSocket: 1, socketsPerNode: 3 }))).toBeUndefined();
  });
});

describe("fitJob with socket layouts", () => {
  it("enforce-binding: a job waits when its GPUs' sockets lack the CPUs, and goes to a node where they fit", () => {
    const busy = view("n1", [1, 8], { freeGpus: [0, 1] }); // free GPUs on socket 0, free CPUs on socket 1
    const r = req({ ntasks: 4, gpusPerNode: 1, enforceBinding: true });
    expect(fitJob(r, [busy], "now")).toBeUndefined();
    expect(fitJob(r, [busy], "ever")).toBeDefined(); // it could run on an empty node: it waits, it is not rejected
    const alloc = fitJob(r, [busy, view("n2", [8, 8])], "now");
    expect(alloc?.map((a) => [a.node, a.gpuIndices, a.socketCpus])).toEqual([["n2", [0], "4,0"]]);
  });

  it("without the flag the same job runs, CPUs spilling over to the other socket", () => {
    const busy = view("n1", [1, 8], { freeGpus: [0, 1] });
    const alloc = fitJob(req({ ntasks: 4, gpusPerNode: 1 }), [busy], "now");
    expect(alloc?.map((a) => [a.gpuIndices, a.socketCpus])).toEqual([[[0], "1,3"]]);
  });

  it("--gpus-per-socket: the node needs the sockets asked for", () => {
    const r = req({ ntasks: 2, gpusPerSocket: 1, socketsPerNode: 2 });
    const one = view("n1", [8, 8], { gpuCount: 2, freeGpus: [0, 1], sockets: { count: 1, gpuSocket: [0, 0], freeCpus: [16] } });
    expect(fitJob(r, [one], "ever")).toBeUndefined();
    expect(fitJob(r, [one, view("n2", [8, 8])], "now")?.map((a) => [a.node, a.gpuIndices])).toEqual([["n2", [0, 2]]]);
  });

  it("withReleased gives back a share's CPUs to its sockets", () => {
    const v = view("n1", [2, 8]);
    const [back] = withReleased([v], [{ node: "n1", cpus: 6, memMib: 0, gpuIndices: [], tasks: 1, socketCpus: "6,0" }]);
    expect(back?.sockets?.freeCpus).toEqual([8, 8]);
  });
});

describe("spur up --sockets-per-node: gres.conf Cores=", () => {
  it("splits the GPUs evenly over the sockets and names each socket's CPUs", async () => {
    const { localGresConf } = await import("../../../src/roles/local-topology.ts");
    const { parseGresConf } = await import("../../../src/compat/conf/gres-conf.ts");
    const text = localGresConf(["n1"], 4, "h100", "xgmi", 2, 16);
    const parsed = parseGresConf(text);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const cores = text.split("\n").filter((l) => l.startsWith("NodeName")).map((l) => /Cores=(\S+)/.exec(l)?.[1]);
    expect(cores).toEqual(["0-7", "0-7", "8-15", "8-15"]);
    expect(gpuSocketsOf(cores.map((c) => c ?? ""), 4, 16, 2)).toEqual([0, 0, 1, 1]);
    expect(localGresConf(["n1"], 4, "h100", "xgmi")).not.toContain("Cores=");
  });
});
