/**
 * Counted GRES other than GPUs (issues 15 §2, 21): the text forms (node Gres=,
 * --gres, counts with K/M/G suffixes, TRES), what a node has free and what a request
 * takes there, REST tres_per_node, the job environment and snapshots
 * (the controller's scheduling: gres-sched.test.ts).
 */
import { describe, expect, it } from "vitest";
import {
  formatGresCount, gresPerNodeText, gresTresText, parseGresCount, parseGresItem, splitNodeGres, trackedGresNames,
} from "../../../src/compat/gres-generic.ts";
import { parseGres } from "../../../src/compat/options/spec-syntax.ts";
import { freeGres, releaseGres, takeGres } from "../../../src/sched/plan/gres-fit.ts";
import { cluster } from "../sched/builders.ts";
import { jobDescArgv, type JobDesc } from "../../../src/net/rest/job-desc.ts";
import { nodeValue } from "../../../src/net/rest/serialize-cluster.ts";
import { buildBatchEnv } from "../../../src/compat/job-env.ts";
import { oracleCtx, oracleJob } from "../job-env/fixtures.ts";
import { CONF } from "./scene.ts";

describe("GRES text", () => {
  it("reads counts with K/M/G suffixes (powers of 1024, as gres.conf Count=) and prints the largest exact one", () => {
    expect(parseGresCount("4G")).toBe(4 * 1024 ** 3);
    expect(parseGresCount("2k")).toBe(2048);
    expect(parseGresCount("7")).toBe(7);
    expect(parseGresCount("4X")).toBeUndefined();
    expect(parseGresCount("")).toBeUndefined();
    expect(formatGresCount(4 * 1024 ** 3)).toBe("4G");
    expect(formatGresCount(1536)).toBe("1536");
    expect(formatGresCount(3)).toBe("3");
  });

  it("reads name[:type][:count] items", () => {
    expect(parseGresItem("nvme:2")).toEqual({ name: "nvme", type: "", count: 2 });
    expect(parseGresItem("bandwidth:lustre:4G")).toEqual({ name: "bandwidth", type: "lustre", count: 4 * 1024 ** 3 });
    expect(parseGresItem("nvme")).toEqual({ name: "nvme", type: "", count: 1 });
    expect(parseGresItem("gpu:mi300x:8(S:0-1)")).toEqual({ name: "gpu", type: "mi300x", count: 8 });
    expect(parseGresItem("bandwidth:lustre:no_consume:4G")).toEqual({ name: "bandwidth", type: "lustre", count: 4 * 1024 ** 3, noConsume: true });
    expect(parseGresItem("lic:no_consume")).toEqual({ name: "lic", type: "", count: 1, noConsume: true });
    expect(parseGresItem("a:b:c")).toBeUndefined();
    expect(parseGresItem("a:b:1:2")).toBeUndefined();
  });

  it("splits a node's Gres= into the GPU text and the counted items, each named in GresTypes", () => {
    const r = splitNodeGres("gpu:mi300x:8,nvme:2,bandwidth:lustre:4G", ["gpu", "nvme", "bandwidth"]);
    expect(r.ok && r.value).toEqual({
      gpuText: "gpu:mi300x:8",
      generic: [{ name: "nvme", type: "", count: 2 }, { name: "bandwidth", type: "lustre", count: 4 * 1024 ** 3 }],
    });
    const missing = splitNodeGres("nvme:2", ["gpu"]);
    expect(!missing.ok && missing.error.message).toMatch(/nvme not in GresTypes/);
  });

  it("parses --gres with suffixed counts; a count above uint32 travels as countWide", () => {
    const r = parseGres("gpu:2,nvme:1,bandwidth:lustre:8G");
    expect(r.ok && r.value).toEqual([
      { name: "gpu", type: "", count: 2 },
      { name: "nvme", type: "", count: 1 },
      { name: "bandwidth", type: "lustre", count: 0, countWide: 8 * 1024 ** 3 },
    ]);
    const bad = parseGres("nvme:x:y");
    expect(!bad.ok && bad.error.message).toBe("Invalid generic resource (gres) specification");
  });

  it("writes TRES: only what AccountingStorageTRES lists, plain counts; TRES per node with gres/ prefixes", () => {
    const tracked = trackedGresNames(["cpu", "gres/gpu", "gres/nvme", "gres/bandwidth:lustre", "license/x"]);
    expect(tracked).toEqual(["nvme", "bandwidth:lustre"]);
    const items = [{ name: "nvme", type: "", count: 1 }, { name: "bandwidth", type: "lustre", count: 1024 ** 3 }, { name: "shard", type: "", count: 2 }];
    expect(gresTresText(items, tracked, 2)).toBe(",gres/nvme=2,gres/bandwidth:lustre=2147483648");
    expect(gresTresText(items, [])).toBe("");
    expect(gresPerNodeText(items)).toBe("gres/nvme:1,gres/bandwidth:lustre:1G,gres/shard:2");
  });
});

describe("counting on a node", () => {
  const total = [{ name: "nvme", type: "", count: 2 }, { name: "bw", type: "a", count: 4 }, { name: "bw", type: "b", count: 4 }];

  it("takes an untyped request from the items in configuration order, a typed one only from its type", () => {
    expect(takeGres([{ name: "bw", type: "", count: 6 }], total)).toEqual([{ name: "bw", type: "a", count: 4 }, { name: "bw", type: "b", count: 2 }]);
    expect(takeGres([{ name: "bw", type: "b", count: 3 }], total)).toEqual([{ name: "bw", type: "b", count: 3 }]);
    expect(takeGres([{ name: "bw", type: "b", count: 5 }], total)).toBeUndefined();
    expect(takeGres([{ name: "nvme", type: "", count: 3 }], total)).toBeUndefined();
    expect(takeGres([{ name: "fpga", type: "", count: 1 }], total)).toBeUndefined();
  });

  it("serves a no_consume item to every job that fits under its count, holding nothing", () => {
    const shared = [{ name: "bw", type: "lustre", count: 4, noConsume: true }];
    expect(takeGres([{ name: "bw", type: "", count: 4 }], shared)).toEqual([]);
    expect(takeGres([{ name: "bw", type: "", count: 5 }], shared)).toBeUndefined();
    expect(freeGres(shared, [[{ name: "bw", type: "lustre", count: 4 }]])[0]?.count).toBe(4);
  });

  it("frees what jobs hold and gives it back, never above the configured count", () => {
    const held = [[{ name: "nvme", type: "", count: 1 }], [{ name: "bw", type: "a", count: 4 }]];
    const free = freeGres(total, held);
    expect(free.map((g) => g.count)).toEqual([1, 0, 4]);
    expect(releaseGres(free, total, [held[1] ?? [], held[1] ?? []]).map((g) => g.count)).toEqual([1, 4, 4]);
  });
});

describe("REST nodes", () => {
  it("list the counted GRES in gres and the tracked ones in tres/tres_used", () => {
    const c = cluster(CONF);
    const n1 = c.state.nodes.get("n1");
    if (n1 === undefined) throw new Error("n1");
    const busy = { ...n1.info, allocCpus: 1, allocMemoryMib: 256, gresUsed: "nvme:1" };
    const v = nodeValue(busy, "t");
    expect([v.gres, v.tres, v.tres_used]).toEqual(["nvme:2", "cpu=4,mem=4000M,billing=4,gres/nvme=2", "cpu=1,mem=256M,gres/nvme=1"]);
  });
});

describe("REST job submission", () => {
  it("reads tres_per_node with one gres/ prefix per item", () => {
    const argv = jobDescArgv({ tres_per_node: "gres/gpu:1,gres/nvme:1" } as JobDesc, 0);
    expect(argv).toContain("--gres=gpu:1,nvme:1");
  });
});

describe("job environment", () => {
  it("SLURM_SHARDS_ON_NODE: the shards held on the node (job-env.tsv), absent without them", () => {
    const job = oracleJob({ jobId: 30, name: "sh", node: "n3", cpus: 1, gpus: [] });
    const alloc = job.alloc[0];
    if (alloc === undefined) throw new Error("fixture has one share");
    const withShards = { ...job, alloc: [{ ...alloc, gres: "shard:3(IDX:1)" }] };
    const env = buildBatchEnv(withShards, oracleCtx(withShards));
    // the shards' GPU is visible "the same as if it were a GPU" (gres.html); it is not the job's GPU
    expect([env.SLURM_SHARDS_ON_NODE, env.CUDA_VISIBLE_DEVICES, env.ROCR_VISIBLE_DEVICES, env.SLURM_JOB_GPUS]).toEqual(["3", "1", "1", undefined]);
    expect(buildBatchEnv(withShards, oracleCtx(withShards, { constrainDevices: true })).CUDA_VISIBLE_DEVICES).toBe("0");
    const plain = buildBatchEnv(job, oracleCtx(job, { submitEnv: { SLURM_SHARDS_ON_NODE: "9" } }));
    expect(plain.SLURM_SHARDS_ON_NODE).toBeUndefined();
  });
});
