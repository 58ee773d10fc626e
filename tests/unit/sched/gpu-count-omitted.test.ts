/**
 * GPU requests without a count (oracle 22.05, held submissions on the gpu partition): --gres=gpu is
 * TresPerNode=gres:gpu and --gres=gpu:mi300x gres:gpu:mi300x (one GPU asked, no count shown);
 * --gpus=mi300x and --gpus-per-node=mi300x ask for one GPU of that type (TresPerJob/Node=gres:gpu:mi300x);
 * a zero count is shown (--gpus-per-node=0 is gres:gpu:0, --gpus=0 TresPerJob=gres:gpu:0).
 */
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import { gpuTresTexts, parseTypedCount } from "../../../src/sched/plan/request.ts";
import { cluster, submit } from "./builders.ts";

function specOf(argv: string[]) {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const r = sbatchRequest({ cmd: "sbatch", argv, env: {}, invoker: { cwd: "/tmp", hostname: "login1" }, now: 0 }, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
  if (!r.ok) throw new Error(r.error.message);
  return { ...r.value.spec, script: r.value.spec.script || "#!/bin/sh\ntrue\n", workDir: "/tmp" };
}

describe("GPU counts left out", () => {
  it.each([
    [["--gres=gpu"], "gres/gpu", ""],
    [["--gres=gpu:mi300x"], "gres/gpu:mi300x", ""],
    [["--gres=gpu:2"], "gres/gpu:2", ""],
    [["--gpus-per-node=mi300x"], "gres/gpu:mi300x", ""],
    [["--gpus-per-node=0"], "gres/gpu:0", ""],
    [["--gpus=mi300x"], "", "gres/gpu:mi300x"],
    [["--gpus=0"], "", "gres/gpu:0"],
    [["--gpus=mi300x:0"], "", "gres/gpu:mi300x:0"],
  ])("%j is TresPerNode %j, TresPerJob %j", (argv, perNode, perJob) => {
    expect(gpuTresTexts(specOf(argv))).toEqual({ perNode, perJob, perSocket: "" });
  });

  it("a type alone is one GPU of it", () => {
    expect(parseTypedCount("mi300x")).toEqual({ type: "mi300x", count: 1, countOmitted: true });
    expect(parseTypedCount("mi300x:2")).toEqual({ type: "mi300x", count: 2 });
  });

  it("--gres=gpu asks for one GPU: the job runs with one", () => {
    const c = cluster();
    const id = c.run(submit(specOf(["-p", "gpu", "--gres=gpu", "-t", "5"]))).ids[0] as number;
    const job = c.state.jobs.get(id)?.info;
    expect(job?.tresReq).toContain("gres/gpu=1");
    expect(job?.tresPerNode).toBe("gres/gpu");
  });
});
