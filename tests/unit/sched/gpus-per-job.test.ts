/**
 * --gpus=N, a GPU count for the whole job: where the node count may grow (no -N, an -N range,
 * -n above 1) the job takes the fewest nodes whose GPUs hold N, each node in order taking all it
 * has but one GPU for each node still owed. Every expectation was read on the 22.05 oracle
 * (n1, n2 without GPUs, n3, n4 with 8 each; `scontrol -d show job` of the running job, or
 * `sbatch --test-only`'s nodes and processors).
 */
import { describe, expect, it } from "vitest";
import { fitJob, type NodeView } from "../../../src/sched/plan/fit-node.ts";
import { buildRequest, type ResourceRequest } from "../../../src/sched/plan/request.ts";
import { cluster, spec } from "./builders.ts";
import { view } from "./fit-fixtures.ts";
import type { JobSpecP } from "../../../src/sched/model/types.ts";

const gpus8 = { gpuCount: 8, gpuModel: "mi300x", freeGpus: [0, 1, 2, 3, 4, 5, 6, 7] };
const oracleNodes = (): NodeView[] => [view("n1"), view("n2"), view("n3", gpus8), view("n4", gpus8)];
const config = cluster().state.config;

function request(over: Partial<JobSpecP>): ResourceRequest {
  const r = buildRequest(spec(over), config, (h) => [h]);
  if (typeof r === "string") throw new Error(r);
  return r;
}

/** node:tasks:cpus:gpus for each share, or "none". */
function placed(over: Partial<JobSpecP>, mode: "now" | "ever" = "now"): string {
  const alloc = fitJob(request(over), oracleNodes(), mode);
  return alloc === undefined ? "none" : alloc.map((a) => `${a.node}:${a.tasks}:${a.cpus}:${a.gpuIndices.length}`).join(" ");
}

describe("--gpus=N over nodes whose count may grow", () => {
  it("takes a second node when one node's GPUs are too few, a task and a CPU on each without -n", () => {
    expect(placed({ gpus: "9" })).toBe("n3:1:1:8 n4:1:1:1");
    expect(placed({ gpus: "16" })).toBe("n3:1:1:8 n4:1:1:8");
    expect(placed({ gpus: "9", cpusPerTask: 4 })).toBe("n3:1:4:8 n4:1:4:1");
  });

  it("keeps -n's tasks, one for each node still owed (-n3: 2 + 1)", () => {
    expect(placed({ gpus: "9", ntasks: 3 })).toBe("n3:2:2:8 n4:1:1:1");
  });

  it("a range takes the fewest nodes that hold the GPUs", () => {
    expect(placed({ gpus: "4", nodesMin: 1, nodesMax: 2 })).toBe("n3:1:1:4");
    expect(placed({ gpus: "10", nodesMin: 1, nodesMax: 2 })).toBe("n3:1:1:8 n4:1:1:2");
  });

  it("fills nodes in order on a fixed node count, one GPU kept for each node still owed", () => {
    expect(placed({ gpus: "9", nodesMin: 2 })).toBe("n3:1:1:8 n4:1:1:1");
    expect(placed({ gpus: "4", nodesMin: 2 })).toBe("n3:1:1:3 n4:1:1:1");
    expect(placed({ gpus: "2", nodesMin: 2 })).toBe("n3:1:1:1 n4:1:1:1");
  });

  it("fits nowhere when held to one node, or past every GPU (the submission check)", () => {
    expect(placed({ gpus: "9", nodesMin: 1 }, "ever")).toBe("none");
    expect(placed({ gpus: "9", ntasks: 1 }, "ever")).toBe("none");
    expect(placed({ gpus: "17" }, "ever")).toBe("none");
    expect(placed({ gpus: "9", nodesMin: 3 }, "ever")).toBe("none");
    expect(placed({ gpus: "9" }, "ever")).not.toBe("none");
  });

  it("stays on one node when one holds them (best fit among the GPU nodes)", () => {
    expect(placed({ gpus: "5" })).toBe("n3:1:1:5");
  });
});

