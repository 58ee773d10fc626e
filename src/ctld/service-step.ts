/**
 * @module ctld/service-step
 * Handlers for srun and salloc: creating a step inside a running allocation
 * (task layout over the job's nodes, block distribution as Slurm's default),
 * recording its end, and ending an interactive allocation. Only the job's owner
 * (or root/operators) may create steps in it.
 */
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { ServiceContext } from "./service.ts";
import { requester, rejectIfError } from "./service.ts";
import type { JobRecord, JobSpecP } from "../sched/model/types.ts";
import type { Plain } from "../lib/plain.ts";
import type { NodeAlloc } from "../net/gen/spur/v1/types_pb.ts";
import type { JobDoneRequest, StepCompleteRequest, StepCreateRequest } from "../net/gen/spur/v1/controller_pb.ts";
import { toPlain } from "../lib/to-plain.ts";
import { canModify } from "../sched/model/apply-update.ts";
import { jobView } from "./views.ts";

/**
 * Tasks per node for a step: spread evenly, the first nodes taking the remainder. The step
 * gets all the job's CPUs on each of its nodes (Slurm's default since 21.08), only the CPUs its
 * tasks ask for with `exact` (srun --exact).
 */
export function stepLayout(job: JobRecord, spec: JobSpecP, exact = false): Plain<NodeAlloc>[] | string {
  const shares = job.info.alloc;
  const nodes = Math.min(shares.length, spec.nodesMin || (spec.ntasks ? Math.min(spec.ntasks, shares.length) : shares.length));
  if ((spec.nodesMin || 0) > shares.length) return "Requested node configuration is not available";
  const ntasks = spec.ntasks || (spec.ntasksPerNode ? spec.ntasksPerNode * nodes : job.spec.ntasks && !spec.nodesMin ? job.info.numTasks : nodes);
  const cpusPerTask = spec.cpusPerTask || 1;
  const base = Math.floor(ntasks / nodes);
  const extra = ntasks % nodes;
  const out: Plain<NodeAlloc>[] = [];
  for (let i = 0; i < nodes; i++) {
    const share = shares[i];
    if (share === undefined) break;
    const tasks = base + (i < extra ? 1 : 0);
    if (tasks === 0) continue;
    if (tasks * cpusPerTask > share.cpus && !spec.overcommit) return "Requested node configuration is not available";
    const cpus = exact ? Math.min(share.cpus, tasks * cpusPerTask) : share.cpus;
    // The job's per-socket CPU counts hold for a step that takes the whole share (the agent picks its cores by them).
    // The job's CPU ids on the node travel with every step: a job of steps only is contained to exactly those.
    out.push({
      node: share.node, cpus, memMib: share.memMib, gpuIndices: share.gpuIndices, tasks,
      ...(share.socketCpus && cpus === share.cpus ? { socketCpus: share.socketCpus } : {}),
      ...(share.cpuIds ? { cpuIds: share.cpuIds } : {}),
    });
  }
  return out;
}

/**
 * The step's task distribution as scontrol shows it: what -m asked for, else srun's default,
 * cyclic when there are no more tasks than nodes and block otherwise.
 */
export function stepDistribution(asked: string, ntasks: number, nodes: number): string {
  const first = (asked.split(/[:,]/)[0] ?? "").toLowerCase();
  const name = first === "" || first === "*" ? (ntasks <= nodes ? "cyclic" : "block") : first;
  return name.charAt(0).toUpperCase() + name.slice(1);
}

export function stepHandlers(sc: ServiceContext) {
  const c = sc.controller;
  const ownedJob = (jobId: number, ctx: HandlerContext): JobRecord => {
    const by = requester(ctx);
    const job = c.state.jobs.get(jobId);
    if (job === undefined) throw new ConnectError("Invalid job id specified", Code.NotFound);
    if (!canModify(job, by, c.state.config)) throw new ConnectError("Access/permission denied", Code.PermissionDenied);
    return job;
  };
  return {
    async stepCreate(req: StepCreateRequest, ctx: HandlerContext) {
      const job = ownedJob(req.jobId, ctx);
      if (job.info.state !== "RUNNING") throw new ConnectError("Job/step already completing or completed", Code.FailedPrecondition);
      const spec = toPlain(req.spec);
      if (spec === undefined) throw new ConnectError("missing step spec", Code.InvalidArgument);
      const alloc = stepLayout(job, spec, req.exact);
      if (typeof alloc === "string") throw new ConnectError(alloc, Code.InvalidArgument);
      const ntasks = alloc.reduce((n, a) => n + a.tasks, 0);
      const result = await c.execute({
        v: 1, type: "stepCreate", at: sc.now(), jobId: req.jobId, name: spec.name, alloc, ntasks,
        srunHost: req.srunHost, srunPid: req.srunPid, distribution: stepDistribution(spec.distribution, ntasks, alloc.length),
      });
      rejectIfError(result, Code.FailedPrecondition);
      const step = job.info.steps.find((s) => s.stepId === result.ids[0]);
      const nodes = alloc.map((a) => {
        const n = c.state.nodes.get(a.node);
        return { name: a.node, addr: n?.info.addr ?? "", port: n?.info.port ?? 0 };
      });
      return { step, nodes, job: jobView(c, job) };
    },
    async stepComplete(req: StepCompleteRequest, ctx: HandlerContext) {
      ownedJob(req.jobId, ctx);
      await c.execute({
        v: 1, type: "stepComplete", at: sc.now(), jobId: req.jobId, stepId: req.stepId, exitCode: req.exitCode,
        exitSignal: req.exitSignal, state: req.state || (req.exitCode === 0 && req.exitSignal === 0 ? "COMPLETED" : "FAILED"),
      });
      return {};
    },
    async jobDone(req: JobDoneRequest, ctx: HandlerContext) {
      const job = ownedJob(req.jobId, ctx);
      if (job.info.batchFlag) throw new ConnectError("Only interactive allocations end this way", Code.FailedPrecondition);
      await c.execute({ v: 1, type: "jobEnded", at: sc.now(), jobId: req.jobId, exitCode: req.exitCode, exitSignal: req.exitSignal, outcome: "" });
      return {};
    },
  };
}
