/**
 * The GPU request surface: --tres-per-task, --cpus-per-gpu in placement, and
 * the TRES-per-node / per-job texts a job records (squeue %b, tres-per-job).
 */
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import { fitJob, type NodeView } from "../../../src/sched/plan/fit-node.ts";
import { buildRequest, gpuTresTexts, switchWaitOver } from "../../../src/sched/plan/request.ts";
import { emptyJobSpec } from "../../../src/sched/model/records.ts";
import type { JobSpecP } from "../../../src/sched/model/types.ts";
import { cluster, spec, submit } from "../sched/builders.ts";

function sbatchSpec(argv: string[]): JobSpecP | string {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) return parsed.error.message;
  const ctx = { cmd: "sbatch" as const, argv, env: {}, invoker: { cwd: "/tmp", hostname: "h" }, now: 0 };
  const r = sbatchRequest(ctx, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
  return r.ok ? r.value.spec : r.error.message;
}

const node = (over: Partial<NodeView> = {}): NodeView => ({
  name: "g1", cpus: 16, memMiB: 64_000, gpuCount: 8, gpuModel: "mi300x", features: [], freeCpus: 16, freeMemMiB: 64_000,
  freeGpus: [0, 1, 2, 3, 4, 5, 6, 7], idle: true, usable: true, ...over,
});

describe("--tres-per-task", () => {
  it.each([
    ["cpu=4,gres/gpu=1", { cpusPerTask: 4, gpusPerTask: "1" }],
    ["gres/gpu:mi300x=2", { gpusPerTask: "mi300x:2" }],
    ["gres/gpu:3", { gpusPerTask: "3" }],
  ])("%s", (value, fields) => {
    // with -n: a per-task GPU count alone is refused (gpu-option-checks.test.ts)
    expect(sbatchSpec([`--tres-per-task=${value}`, "-n", "1"])).toMatchObject(fields);
  });

  it("refuses other resources and zero counts with Slurm's GRES message", () => {
    expect(sbatchSpec(["--tres-per-task=mem=4"])).toContain("Invalid generic resource (gres) specification");
    expect(sbatchSpec(["--tres-per-task=gres/gpu=0"])).toContain("Invalid generic resource (gres) specification");
  });
});

describe("--switches", () => {
  it("reads the count and the wait (default 300 s, time as --time reads it)", () => {
    expect(sbatchSpec(["--switches=1@10:00"])).toMatchObject({ reqSwitch: 1, wait4switchSec: 600 });
    expect(sbatchSpec(["--switches=2"])).toMatchObject({ reqSwitch: 2, wait4switchSec: 300 });
    // Slurm 22.05's parse_int wording for the count; an unreadable wait leaves the default (oracle)
    expect(sbatchSpec(["--switches=x"])).toBe('Invalid numeric value "x" for --switches.');
    expect(sbatchSpec(["--switches=0"])).toBe('Invalid numeric value "0" for --switches.');
    expect(sbatchSpec(["--switches=1@bogus"])).toMatchObject({ reqSwitch: 1, wait4switchSec: 300 });
  });

  it("counts the wait from eligibility", () => {
    const s = { ...emptyJobSpec(), reqSwitch: 1, wait4switchSec: 600 };
    expect(switchWaitOver(s, 1000, 1599)).toBe(false);
    expect(switchWaitOver(s, 1000, 1600)).toBe(true);
    expect(switchWaitOver(emptyJobSpec(), 1000, 1000)).toBe(true);
  });
});

describe("--cpus-per-gpu", () => {
  const expand = (h: string) => [h];
  it("gives each node share CPUs for its GPUs and waits when they are not free", () => {
    const req = buildRequest({ ...emptyJobSpec(), gpusPerNode: "4", cpusPerGpu: 3, memPerNodeMib: 100 }, cluster().state.config, expand);
    if (typeof req === "string") throw new Error(req);
    expect(fitJob(req, [node()], "now")?.[0]).toMatchObject({ cpus: 12, gpuIndices: [0, 1, 2, 3] });
    expect(fitJob(req, [node({ freeCpus: 8, idle: false })], "now")).toBeUndefined();
  });
});

describe("--gpus over several nodes", () => {
  it("allocates exactly the total, spread 2 + 1 over two nodes", () => {
    const req = buildRequest({ ...emptyJobSpec(), nodesMin: 2, gpus: "3", memPerNodeMib: 100 }, cluster().state.config, (h) => [h]);
    if (typeof req === "string") throw new Error(req);
    const got = fitJob(req, [node(), node({ name: "g2" })], "now");
    expect(got?.map((a) => `${a.node}:${a.gpuIndices.join(",")}`)).toEqual(["g1:0,1", "g2:0"]);
  });
});

describe("TRES per node and per job", () => {
  it("keeps --gpus per job, never per node", () => {
    expect(gpuTresTexts({ ...emptyJobSpec(), gpus: "mi300x:2" })).toEqual({ perNode: "", perJob: "gres/gpu:mi300x:2", perSocket: "" });
    expect(gpuTresTexts({ ...emptyJobSpec(), gpusPerNode: "4" })).toEqual({ perNode: "gres/gpu:4", perJob: "", perSocket: "" });
    expect(gpuTresTexts({ ...emptyJobSpec(), gresPerNode: [{ name: "gpu", type: "mi300x", count: 2 }] }).perNode).toBe("gres/gpu:mi300x:2");
    const c = cluster();
    c.run(submit(spec({ gpus: "2" })));
    expect(c.state.jobs.get(1)?.info).toMatchObject({ tresPerNode: "", tresPerJob: "gres/gpu:2" });
  });
});

describe("--ntasks-per-gpu", () => {
  const expand = (h: string) => [h];
  const config = cluster().state.config;
  it("derives the GPU count from -n, and the task count from the GPUs", () => {
    const fromTasks = buildRequest({ ...emptyJobSpec(), ntasks: 5, ntasksPerGpu: 2 }, config, expand);
    expect(fromTasks).toMatchObject({ ntasks: 5, gpusPerNode: 3 });
    const fromGpus = buildRequest({ ...emptyJobSpec(), gpusPerNode: "4", ntasksPerGpu: 2 }, config, expand);
    expect(fromGpus).toMatchObject({ ntasks: 8, gpusPerNode: 4 });
    const spread = buildRequest({ ...emptyJobSpec(), nodesMin: 2, ntasks: 8, ntasksPerGpu: 2 }, config, expand);
    expect(spread).toMatchObject({ ntasks: 8, gpusTotal: 4 });
  });

  it("is read from the command line", () => {
    expect(sbatchSpec(["--ntasks-per-gpu=2", "-G", "2"])).toMatchObject({ ntasksPerGpu: 2, gpus: "2" });
  });
});

describe("per-task TRES and switches on the job record", () => {
  it("records them as Slurm shows them in squeue -O tres-per-task,ReqSwitch,Wait4Switch", () => {
    const c = cluster();
    c.run(submit(spec({ cpusPerTask: 2, gpusPerTask: "mi300x:1", ntasks: 2, reqSwitch: 1, wait4switchSec: 600 })));
    // the wait shown is capped at max_switch_wait, 300 s (oracle: --switches=2@10:00 is Switches=2@00:05:00)
    expect(c.state.jobs.get(1)?.info).toMatchObject({ tresPerTask: "cpu=2,gres/gpu:mi300x=1", reqSwitch: 1, wait4switchSec: 300 });
    c.run(submit(spec()));
    expect(c.state.jobs.get(2)?.info.tresPerTask).toBeUndefined();
  });
});
