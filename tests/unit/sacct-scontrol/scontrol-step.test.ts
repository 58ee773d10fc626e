/**
 * `scontrol show step` (conformance x-scontrol-show-step): Slurm's layout for
 * a running srun step of a batch job, step selection and the not-found texts.
 */
import { describe, expect, it } from "vitest";
import { scontrolMain } from "../../../src/cli/scontrol.ts";
import { at, fakePort, makeJob, makeStep } from "./helpers.ts";

const NOW = at("12:36:08");
const job = makeJob({
  jobId: 30, name: "run1", state: "RUNNING", partition: "debug", nodelist: "n1", timeLimitMin: 30, startTime: NOW - 20,
  steps: [
    makeStep({
      jobId: 30, stepId: 0, name: "sleep", state: "RUNNING", nodelist: "n1", ntasks: 1, cpus: 2, startTime: NOW - 10,
      tres: "cpu=2,mem=512M,node=1", srunHost: "vm", srunPid: 4242, distribution: "Cyclic",
      alloc: [{ node: "n1", cpus: 2, memMib: 512, gpuIndices: [], tasks: 1 }],
    }),
    makeStep({ jobId: 30, stepId: 1, state: "COMPLETED" }),
  ],
});

const run = async (argv: string[]) => scontrolMain(argv, fakePort({ jobs: [job], now: NOW }).port);

describe("scontrol show step", () => {
  it("prints a running step in Slurm's layout", async () => {
    const r = await run(["show", "step", "30.0"]);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^StepId=30\.0 UserId=0 StartTime=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d TimeLimit=00:30:00$/);
    expect(lines.slice(1)).toEqual([
      "   State=RUNNING Partition=debug NodeList=n1",
      "   Nodes=1 CPUs=2 Tasks=1 Name=sleep Network=(null)",
      "   TRES=cpu=2,mem=512M,node=1",
      "   ResvPorts=(null)",
      "   CPUFreqReq=Default Dist=Cyclic",
      "   SrunHost:Pid=vm:4242",
      "",
      "",
    ]);
  });

  it("selects by job, lists running steps only, and says when none match", async () => {
    expect((await run(["show", "steps", "30"])).stdout.match(/^StepId=/gm)).toHaveLength(1);
    expect((await run(["show", "step"])).stdout).toContain("StepId=30.0 ");
    expect(await run(["show", "step", "30.1"])).toEqual({ stdout: "Job step 30.1 not found\n", stderr: "", exitCode: 1 });
    // a job id alone: Slurm's message leaves the step part empty
    expect(await run(["show", "step", "99"])).toEqual({ stdout: "Job step 99. not found\n", stderr: "", exitCode: 1 });
    expect((await run(["show", "step", "x"])).stderr).toBe("slurm_get_job_steps error: Invalid job id specified\n");
    const none = await scontrolMain(["show", "step"], fakePort({ jobs: [], now: NOW }).port);
    expect(none.stdout).toBe("No job steps in the system\n");
  });
});
