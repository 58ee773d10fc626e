/**
 * @module roles/cli/srun-het
 * `srun A : B`: a heterogeneous step. Every component's step is created first (each in its
 * het group's job, or all in the one job of an ordinary allocation), then all are launched at
 * once, each task numbered and placed in the whole step (compat/het-step.ts), and srun ends
 * with the highest exit status of any component, as Slurm's srun does. PMI is not offered
 * across components: each component would be a world of its own, so a het step runs without it.
 */
import type { Plain } from "../../lib/plain.ts";
import type { StepCreateResponse } from "../../net/gen/spur/v1/controller_pb.ts";
import { hetGroupJobId } from "../../compat/het-env.ts";
import { hetStepEnv, hetStepPlaces } from "../../compat/het-step.ts";
import { hetComponentsOf } from "./allocation.ts";
import { runStep, type StepCalls, type StepRequest } from "./step-launch.ts";

export interface HetPart {
  request: StepRequest;
  calls: StepCalls;
}

/**
 * The job of each of `count` components: a het allocation's component jobs (srun's own, or the
 * one it runs in, from SLURM_JOB_ID_HET_GROUP_n), or `jobId` for every one in an ordinary job.
 */
export async function hetStepJobIds(own: boolean, jobId: number, count: number, env: Readonly<Record<string, string | undefined>>): Promise<number[]> {
  if (own) {
    const ids = (await hetComponentsOf(jobId)).map((c) => c.jobId);
    if (ids.length !== count) throw new Error(`heterogeneous job ${jobId} has ${ids.length} components, not ${count}`);
    return ids;
  }
  if (env.SLURM_HET_SIZE === undefined && env.SLURM_PACK_SIZE === undefined) return new Array<number>(count).fill(jobId);
  return Array.from({ length: count }, (_, n) => {
    const id = hetGroupJobId(env, n);
    if (typeof id === "string") throw new Error(id);
    return id;
  });
}

export async function runHetStep(parts: readonly HetPart[], abort: AbortSignal): Promise<{ exitCode: number; exitSignal: number }> {
  const created: Plain<StepCreateResponse>[] = [];
  try {
    for (const p of parts) {
      const { request: q } = p;
      created.push(await p.calls.stepCreate({ jobId: q.jobId, spec: q.spec, exact: q.exact, srunHost: q.host, srunPid: process.pid, interactive: q.interactive === true }));
    }
  } catch (error) {
    // a later component refused: the earlier ones' steps end without having run
    await Promise.all(created.map((c, n) => parts[n]?.calls.stepComplete({ jobId: parts[n]?.request.jobId ?? 0, stepId: c.step?.stepId ?? 0, exitCode: 1, exitSignal: 0, state: "CANCELLED" }).catch(() => undefined)));
    throw error;
  }
  const steps = created.map((c) => {
    if (c.step === undefined || c.job === undefined) throw new Error("controller returned no step");
    return { job: c.job, shares: c.step.alloc };
  });
  const places = hetStepPlaces(steps);
  const groupEnv = hetStepEnv(steps.map((s) => s.job));
  const runs = parts.map((p, n) => {
    const once = created[n] as Plain<StepCreateResponse>;
    const request: StepRequest = { ...p.request, baseEnv: { ...p.request.baseEnv, ...groupEnv }, hetPlace: places[n], mpi: "none" };
    return runStep(request, { ...p.calls, stepCreate: () => Promise.resolve(once) }, abort);
  });
  const results = await Promise.allSettled(runs);
  const failed = results.find((r) => r.status === "rejected");
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
  let exitCode = 0;
  let exitSignal = 0;
  for (const r of results) {
    if (r.status !== "fulfilled") continue;
    exitCode = Math.max(exitCode, r.value.exitCode);
    if (r.value.exitSignal !== 0) exitSignal = r.value.exitSignal;
  }
  return { exitCode, exitSignal };
}
