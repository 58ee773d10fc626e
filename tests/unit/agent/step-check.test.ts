/**
 * checkStepClaim (agent/step-check.ts): what spurd accepts of an srun task request
 * beyond the caller's uid, against the controller's record of the job.
 */
import { describe, expect, it } from "vitest";
import { checkStepClaim, type JobRecordView, type StepClaim } from "../../../src/agent/step-check.ts";

const job: JobRecordView = { jobId: 7, uid: 1001, state: "RUNNING", alloc: [{ node: "n1", cpus: 4, memMib: 1000, gpuIndices: [2, 3], cpuIds: "4-7" }] };
const claim = (over: Partial<StepClaim> = {}): StepClaim => ({ jobId: 7, uid: 1001, node: "n1", cpus: 2, memMib: 500, gpuIndices: [3], cpuIds: "4-5", ...over });

describe("checkStepClaim", () => {
  it("accepts a step of the caller's running job within the job's share of this node", () => {
    expect(checkStepClaim(claim(), job)).toBe("");
    expect(checkStepClaim(claim({ cpus: 4, memMib: 1000, gpuIndices: [2, 3], cpuIds: "4-7" }), job)).toBe("");
    expect(checkStepClaim(claim({ cpuIds: undefined }), job)).toBe("");
  });

  it("refuses another user's job, an unknown or ended job, another node", () => {
    expect(checkStepClaim(claim({ uid: 1002 }), job)).toBe("job 7 is not the caller's");
    expect(checkStepClaim(claim(), undefined)).toBe("job 7 is unknown");
    expect(checkStepClaim(claim(), { ...job, state: "COMPLETED" })).toBe("job 7 is COMPLETED, not RUNNING");
    expect(checkStepClaim(claim({ node: "n2" }), job)).toBe("job 7 has no allocation on n2");
  });

  it("refuses more CPUs, memory, other GPUs or CPU ids than the job holds here", () => {
    expect(checkStepClaim(claim({ cpus: 5 }), job)).toBe("the step asks for 5 CPUs, the job holds 4 on n1");
    expect(checkStepClaim(claim({ memMib: 1001 }), job)).toBe("the step asks for 1001 MiB, the job holds 1000 on n1");
    expect(checkStepClaim(claim({ gpuIndices: [0, 3] }), job)).toBe("GPUs 0 on n1 are not the job's");
    expect(checkStepClaim(claim({ cpuIds: "0-1" }), job)).toBe("CPU ids 0-1 on n1 are not the job's");
    expect(checkStepClaim(claim(), { ...job, alloc: [{ ...job.alloc[0]!, cpuIds: undefined }] })).toBe("CPU ids 4-5 on n1 are not the job's");
  });
});
