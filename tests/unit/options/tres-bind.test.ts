/**
 * --tres-bind (Slurm 23.x+, sbatch-options.tsv): `gres/gpu:[verbose,]TYPE` binds as
 * --gpu-bind=TYPE does (the only TRES Slurm binds), from the command line and
 * SBATCH_TRES_BIND, with "Invalid --tres-bind argument" for anything else; the job keeps
 * the binding (JobInfo.tresBind), which scontrol show job prints as TresBind= in 22.05's
 * form ("gpu:closest"), before the per-TRES lines, and squeue -O tres-bind shows.
 */
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import { errorText } from "../../../src/compat/options/messages.ts";
import { parseTresBind } from "../../../src/compat/gpu-bind.ts";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import { makeJob } from "../sacct-scontrol/helpers.ts";

const INVOKER = { cwd: "/home/alice", hostname: "login1" };

function sbatch(argv: string[], env: Record<string, string> = {}) {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) return parsed;
  return sbatchRequest({ cmd: "sbatch", argv, env, invoker: INVOKER, now: 0 }, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
}

describe("--tres-bind", () => {
  it("binds GPUs as --gpu-bind does, without a warning, from the command line and SBATCH_TRES_BIND", () => {
    for (const [argv, env, kept] of [[["--tres-bind=gres/gpu:single:2", "--gpus=2"], {}, "single:2"], [["--gpus=2"], { SBATCH_TRES_BIND: "gres/gpu:verbose,single:2" }, "verbose,single:2"]] as const) {
      const r = sbatch([...argv], env);
      expect(r.ok && [r.value.spec.gpuBind, r.value.warnings]).toEqual([kept, []]);
    }
    expect(parseTresBind("gres/gpu:closest")).toEqual({ ok: true, value: "closest" });
    expect(parseTresBind("gres/gpu:map_gpu:0,1")).toEqual({ ok: true, value: "map_gpu:0,1" });
  });

  it.each(["gpu:closest", "gres/nic:closest", "gres/gpu", "gres/gpu:sideways", "gres/gpu:closest+bogus", ""])("refuses %j with Slurm's text", (value) => {
    const r = sbatch([`--tres-bind=${value}`]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(errorText("sbatch", r.error)).toBe(`sbatch: error: Invalid --tres-bind argument: ${value}\n`);
  });

  it("scontrol show job prints TresBind= before TresPerNode (22.05's form); no line without a binding", () => {
    const job = makeJob({ jobId: 7, tresPerNode: "gres/gpu:2", tresBind: "gres/gpu:closest" });
    const lines = formatJobRecord(job, { now: 0, oneLiner: false, detail: false }).split("\n").map((l) => l.trim());
    const at = lines.indexOf("TresBind=gpu:closest");
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe("TresPerNode=gres:gpu:2");
    expect(formatJobRecord(makeJob({ jobId: 8 }), { now: 0, oneLiner: false, detail: false })).not.toContain("TresBind");
  });
});

describe("the job's TRES binding", () => {
  it("is kept at submission in Slurm's stored form, absent without a binding", async () => {
    const { cluster, spec, submit } = await import("../sched/builders.ts");
    const c = cluster();
    c.run(submit(spec({ gpuBind: "closest", gpus: "1" } as never)));
    c.run(submit(spec()));
    expect([...c.state.jobs.values()].map((j) => j.info.tresBind)).toEqual(["gres/gpu:closest", undefined]);
  });
});

describe("a step's TRES binding", () => {
  it("is kept by stepCreate and shown by scontrol show step (TresBind= after SrunHost:Pid)", async () => {
    const { cluster, spec, submit } = await import("../sched/builders.ts");
    const { formatStepRecord } = await import("../../../src/cli/scontrol-show-step.ts");
    const c = cluster();
    c.run(submit(spec()));
    c.run({ v: 1, type: "startJobs", at: 11, decisions: [{ jobId: 1, arrayTaskId: -1, alloc: [{ node: "n1", cpus: 1, memMib: 256, gpuIndices: [], tasks: 1 }] }] });
    const alloc = [{ node: "n1", cpus: 1, memMib: 256, gpuIndices: [], tasks: 1 }];
    c.run({ v: 1, type: "stepCreate", at: 12, jobId: 1, name: "a", alloc, ntasks: 1, tresBind: "gres/gpu:single:1" });
    c.run({ v: 1, type: "stepCreate", at: 12, jobId: 1, name: "b", alloc, ntasks: 1 });
    const job = c.state.jobs.get(1)?.info;
    expect(job?.steps.map((s) => s.tresBind)).toEqual(["gres/gpu:single:1", undefined]);
    const text = formatStepRecord(job as never, job?.steps[0] as never, false).split("\n").map((l) => l.trim());
    expect(text[text.indexOf("TresBind=gpu:single:1") - 1]).toMatch(/^SrunHost:Pid=/);
    expect(formatStepRecord(job as never, job?.steps[1] as never, false)).not.toContain("TresBind");
  });
});
