/**
 * sstat's messages when a job has nothing to show, as 22.05 prints them (probed on the oracle):
 * an unknown job (with or without a step) "couldn't get steps for job N"; a known job that is not
 * running (pending, held or ended) "No steps running for job N"; a named step that is not running
 * "StepId=N.S not found running."; a running job with only its batch script, nothing. All on
 * stderr with exit 0; the header is still printed unless -n.
 */
import { describe, expect, it } from "vitest";
import { sstatMain, type AgentStats } from "../../../src/cli/sstat.ts";
import { fakePort } from "../squeue-sinfo/golden.ts";
import { job } from "../squeue-sinfo/fixtures.ts";

const NOW = 1_800_000_000;
const pending = job({ jobId: 407, state: "PENDING" });
const ended = job({ jobId: 422, state: "COMPLETED" });
const running = job({ jobId: 423, state: "RUNNING", alloc: [{ node: "n1", cpus: 1, memMib: 100, gpuIndices: [] }] as never });
const port = fakePort({ now: NOW, jobs: [pending, ended, running], nodes: [{ name: "n1", addr: "127.0.0.1", port: 1 }] as never });
// the running job's node answers with its batch step only
const batchOnly: AgentStats = async (_a, _p, jobId, stepId) =>
  jobId === 423 && (stepId === -1 || stepId === -5) ? [{ jobId: 423, stepId: -5, ntasks: 1, nodelist: "n1", usage: {} } as never] : [];

const run = (args: string[]) => sstatMain([...args, "-P", "-n", "-o", "JobID"], port, batchOnly);

describe("sstat with nothing running to show (22.05)", () => {
  it.each([
    ["9999999", "sstat: error: couldn't get steps for job 9999999\n"],
    ["9999999.0", "sstat: error: couldn't get steps for job 9999999\n"],
    ["407", "sstat: error: No steps running for job 407\n"],
    ["422", "sstat: error: No steps running for job 422\n"],
    ["407.batch", "sstat: error: StepId=407.batch not found running.\n"],
    ["422.batch", "sstat: error: StepId=422.batch not found running.\n"],
    ["423.7", "sstat: error: StepId=423.7 not found running.\n"],
    ["423.extern", "sstat: error: StepId=423.extern not found running.\n"],
    ["423", ""],
  ])("sstat -j %s", async (target, stderr) => {
    const r = await run(["-j", target]);
    expect({ stderr: r.stderr, exitCode: r.exitCode }).toEqual({ stderr, exitCode: 0 });
  });

  it("a running job's batch step is shown when named", async () => {
    expect((await run(["-j", "423.batch"])).stdout).toBe("423.batch\n");
  });

  it("one message per target, in order", async () => {
    expect((await run(["-j", "423,422"])).stderr).toBe("sstat: error: No steps running for job 422\n");
  });
});
