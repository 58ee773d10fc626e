/** A minimal resource request and node view for placement tests (fit-node, prefer). */
import type { NodeView } from "../../../src/sched/plan/fit-node.ts";
import type { ResourceRequest } from "../../../src/sched/plan/request.ts";

export function req(over: Partial<ResourceRequest> = {}): ResourceRequest {
  return {
    nodesMin: 1, nodesMax: 1, ntasks: 1, ntasksPerNode: 0, cpusPerTask: 1, mem: { kind: "node", mib: 100 },
    gpusPerNode: 0, gpusTotal: 0, gpusPerTask: 0, gpuType: "", exclusive: false, nodelist: [], exclude: [], features: [],
    ...over,
  };
}

export function view(name: string, over: Partial<NodeView> = {}): NodeView {
  return {
    name, cpus: 4, memMiB: 4000, gpuCount: 0, gpuModel: "", features: [], freeCpus: 4, freeMemMiB: 4000,
    freeGpus: [], idle: true, usable: true, ...over,
  };
}
