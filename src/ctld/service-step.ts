/**
 * @module ctld/service-step
 * Handlers for srun and salloc: creating a step inside a running allocation
 * (task layout over the job's nodes, block distribution as Slurm's default),
 * recording its end, and ending an interactive allocation. Only the job's owner
 * (or root/operators) may create steps in it.
 */
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { isHetFollower, runsBatchScript } from "../sched/model/het.ts";
import type { ServiceContext } from "./service-context.ts";
import { requester, rejectIfError } from "./service-context.ts";
import type { JobRecord, JobSpecP } from "../sched/model/types.ts";
import type { NodeAllocState } from "../sched/model/state-types.ts";
import type { JobDoneRequest, StepCompleteRequest, StepCreateRequest } from "../net/gen/spur/v1/controller_pb.ts";
import { jobInfoToWire, jobSpecFromWire, stepInfoToWire } from "./wire-map/job.ts";
import { canModify } from "../sched/model/job-access.ts";
import { jobView } from "./views.ts";
import { STEP_TOO_MANY_CPUS, stepTaskCounts } from "../compat/job-layout.ts";
import { isArbitrary } from "../compat/task-layout.ts";
import { STEP_NODES_BUSY } from "../compat/srun-step-wait.ts";
import { expandHostlist, naturalCompare } from "../compat/hostlist.ts";

/**
 * Tasks per node for a step, as Slurm lays a step out (compat/job-layout.ts
 * stepTaskCounts): dealt over its nodes within the CPUs each holds for the job, more only with
 * --overcommit, else "More processors requested than permitted". The step gets all the job's
 * CPUs on each of its nodes (Slurm's default since 21.08), only the CPUs its tasks ask for with
 * `exact` (srun --exact, or --exclusive inside an allocation); such a step goes to the nodes
 * with CPUs no other exact step of the job holds, so concurrent ones spread.
 */
export function stepLayout(job: JobRecord, spec: JobSpecP, exact = false): NodeAllocState[] | string {
  const arbitrary = arbitraryLayout(job, spec);
  if (arbitrary !== undefined) return arbitrary;
  const picked = stepCandidates(job.info.alloc, spec);
  if (typeof picked === "string") return picked;
  const shares = picked.shares;
  if ((spec.nodesMin || 0) > shares.length) return "Requested node configuration is not available";
  // -N (a range takes as many of the job's nodes as it may), else one node per task up to all of them
  const nodesTop = Math.min(shares.length, spec.nodesMax || spec.nodesMin || shares.length, spec.ntasks || shares.length);
  const nodes = Math.max(Math.min(spec.nodesMin, shares.length), nodesTop, picked.required);
  const ntasks = spec.ntasks || (spec.ntasksPerNode ? spec.ntasksPerNode * nodes : job.spec.ntasks && !spec.nodesMin ? job.info.numTasks : nodes);
  const cpusPerTask = spec.cpusPerTask || 1;
  const whole = (s: NodeAllocState): number => s.cpus;
  if (!exact) return placeStep(inAllocationOrder(job.info.alloc, shares.slice(0, nodes)), whole, ntasks, cpusPerTask, spec.overcommit, false);
  const held = cpusHeldBySteps(job);
  // exact steps take the nodes with the most CPUs still free (in allocation order among equals)
  const onFreest = (free: (s: NodeAllocState) => number): NodeAllocState[] | string => {
    const chosen = [...shares].filter((s) => free(s) >= cpusPerTask).sort((a, b) => free(b) - free(a)).slice(0, nodes);
    return chosen.length < nodes ? STEP_TOO_MANY_CPUS : placeStep(chosen, free, ntasks, cpusPerTask, spec.overcommit, true);
  };
  const now = onFreest((s) => s.cpus - (held.get(s.node) ?? 0));
  if (typeof now !== "string" || held.size === 0) return now;
  // what the job's own CPUs could never hold is refused; what other steps hold now is waited for (srun retries)
  const ever = onFreest(whole);
  return typeof ever === "string" ? ever : STEP_NODES_BUSY;
}

/** The step's shares on `chosen` (the job's shares), `free(s)` CPUs each for it; only the tasks' CPUs when exact. */
function placeStep(
  chosen: readonly NodeAllocState[], free: (s: NodeAllocState) => number, ntasks: number, cpusPerTask: number, overcommit: boolean, exact: boolean,
): NodeAllocState[] | string {
  if (chosen.length === 0) return STEP_TOO_MANY_CPUS;
  const counts = stepTaskCounts(chosen.map(free), Math.max(ntasks, chosen.length), cpusPerTask, overcommit);
  if (typeof counts === "string") return counts;
  const out: NodeAllocState[] = [];
  chosen.forEach((share, i) => {
    const tasks = counts[i] ?? 0;
    const cpus = exact ? Math.min(free(share), tasks * cpusPerTask) : share.cpus;
    // The job's per-socket CPU counts hold for a step that takes the whole share (the agent picks its cores by them).
    // The job's CPU ids on the node travel with every step: a job of steps only is contained to exactly those.
    out.push({
      node: share.node, cpus, memMib: share.memMib, gpuIndices: share.gpuIndices, tasks,
      ...(share.socketCpus && cpus === share.cpus ? { socketCpus: share.socketCpus } : {}),
      ...(share.cpuIds ? { cpuIds: share.cpuIds } : {}),
      // the job's counted GRES on the node travel with the step (a shard's GPU is one its tasks may open)
      ...(share.gres ? { gres: share.gres } : {}),
    });
  });
  return out;
}

/**
 * The job's nodes a step may use: without -w/-x all of them in allocation order; -x removes
 * nodes; -w nodes come first and must all be the job's (`mpirun --host` subsets arrive as
 * `srun --nodelist=...`). `required` is how many the step must take.
 */
function stepCandidates(alloc: readonly NodeAllocState[], spec: JobSpecP): { shares: NodeAllocState[]; required: number } | string {
  const named = (list: string): string[] | undefined => {
    if (list === "") return [];
    const r = expandHostlist(list);
    return r.ok ? r.value : undefined;
  };
  const wanted = named(spec.nodelist);
  const excluded = named(spec.exclude);
  if (wanted === undefined || excluded === undefined) return "Invalid node name specified";
  const inJob = new Set(alloc.map((a) => a.node));
  if (wanted.some((n) => !inJob.has(n) || excluded.includes(n))) return "Requested node configuration is not available";
  const usable = alloc.filter((a) => !excluded.includes(a.node));
  const first = usable.filter((a) => wanted.includes(a.node));
  return { shares: [...first, ...usable.filter((a) => !wanted.includes(a.node))], required: first.length };
}

/** `chosen` (some of the job's shares) in the job's allocation order: ranks are dealt in node order. */
function inAllocationOrder(alloc: readonly NodeAllocState[], chosen: readonly NodeAllocState[]): NodeAllocState[] {
  const at = new Map(alloc.map((a, i) => [a.node, i]));
  return [...chosen].sort((a, b) => (at.get(a.node) ?? 0) - (at.get(b.node) ?? 0));
}

/**
 * -m arbitrary with a host list (SLURM_HOSTFILE, or -w with repeats): each node runs as many
 * tasks as it appears in the list; the list must name nodes of the allocation.
 */
function arbitraryLayout(job: JobRecord, spec: JobSpecP): NodeAllocState[] | string | undefined {
  if (!isArbitrary(spec.distribution) || spec.nodelist === "") return undefined;
  const hosts = expandHostlist(spec.nodelist);
  if (!hosts.ok) return "Invalid node name specified";
  // in node order, as Slurm lists a step's nodes (SLURM_TASKS_PER_NODE=1,2,1 for n2,n2,n1,n3)
  const shares = job.info.alloc.filter((s) => hosts.value.includes(s.node)).sort((a, b) => naturalCompare(a.node, b.node));
  if (new Set(hosts.value).size !== shares.length) return "Requested node configuration is not available";
  return shares.map((share) => ({
    node: share.node, cpus: share.cpus, memMib: share.memMib, gpuIndices: share.gpuIndices,
    tasks: hosts.value.filter((h) => h === share.node).length, ...(share.cpuIds ? { cpuIds: share.cpuIds } : {}),
    ...(share.gres ? { gres: share.gres } : {}),
  }));
}

/**
 * CPUs the job's running steps hold per node, as an exact step sees them: an exact step its own
 * CPUs, any other step the whole share (Slurm 22.05 makes `srun --exclusive` wait for a plain step
 * on the node; the oracle's step 260.2 started when 260.1 ended).
 */
function cpusHeldBySteps(job: JobRecord): Map<string, number> {
  const whole = new Map(job.info.alloc.map((a) => [a.node, a.cpus]));
  const held = new Map<string, number>();
  for (const step of job.info.steps) {
    if (step.state !== "RUNNING" || step.stepId < 0) continue;
    for (const a of step.alloc) {
      const share = whole.get(a.node) ?? 0;
      held.set(a.node, Math.min(share, (held.get(a.node) ?? 0) + Math.min(a.cpus, share)));
    }
  }
  return held;
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
      if (req.spec === undefined) throw new ConnectError("missing step spec", Code.InvalidArgument);
      const spec = jobSpecFromWire(req.spec);
      const alloc = stepLayout(job, spec, req.exact);
      // busy is worth a retry (srun waits for the other steps); anything else is final
      if (typeof alloc === "string") throw new ConnectError(alloc, alloc === STEP_NODES_BUSY ? Code.ResourceExhausted : Code.InvalidArgument);
      const ntasks = alloc.reduce((n, a) => n + a.tasks, 0);
      const result = await c.execute({
        v: 1, type: "stepCreate", at: sc.now(), jobId: req.jobId, name: spec.name, alloc, ntasks,
        srunHost: req.srunHost, srunPid: req.srunPid, distribution: stepDistribution(spec.distribution, ntasks, alloc.length),
        ...((spec.gpuBind ?? "") !== "" ? { tresBind: `gres/gpu:${spec.gpuBind}` } : {}),
        ...(req.interactive ? { interactive: true } : {}),
      });
      rejectIfError(result);
      const step = job.info.steps.find((s) => s.stepId === result.ids[0]);
      const nodes = alloc.map((a) => {
        const n = c.state.nodes.get(a.node);
        return { name: a.node, addr: n?.info.addr ?? "", port: n?.info.port ?? 0 };
      });
      return { step: step && stepInfoToWire(step), nodes, job: jobInfoToWire(jobView(c, job)) };
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
      if (runsBatchScript(job.info) || isHetFollower(job.info)) throw new ConnectError("Only interactive allocations end this way", Code.FailedPrecondition);
      await c.execute({ v: 1, type: "jobEnded", at: sc.now(), jobId: req.jobId, exitCode: req.exitCode, exitSignal: req.exitSignal, outcome: "" });
      return {};
    },
  };
}
