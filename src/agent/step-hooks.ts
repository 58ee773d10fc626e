/**
 * @module agent/step-hooks
 * What an srun step on this node needs before its tasks start: the step's claim checked
 * against the job (this node's own launch record for srun inside a batch script, else the
 * controller's), the node Prolog before a job's first step here, the cgroup, the container;
 * and, when it ends, its cores released and its usage recorded. Also sbcast's job check.
 * Failure policy: a claim that cannot be checked (no controller) refuses the step.
 */
import type { ConsolaInstance } from "consola/core";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { RunTasksRequest } from "../net/gen/spur/v1/agent_pb.ts";
import type { JobInfo } from "../net/gen/spur/v1/types_pb.ts";
import type { AgentDeps } from "./agent-api.ts";
import { containerSite, deviceGpus, jobFacts } from "./agent-site.ts";
import { setUpCgroup, removeTrees } from "./cgroup/fs.ts";
import { errorLines, planContainer, prepareContainer, releaseContainer, type ContainerLaunch } from "./container/launch.ts";
import type { Rootfs } from "./container/rootfs.ts";
import type { ControllerLink } from "./controller-link.ts";
import type { NodeProlog } from "./node-prolog.ts";
import type { JobFacts } from "./prolog.ts";
import { jobDir, type LaunchFile, readJson } from "./spool.ts";
import { checkStepClaim, type JobRecordView } from "./step-check.ts";
import { runningSteps, type StepHooks } from "./tasks.ts";

export interface StepHookDeps {
  deps: AgentDeps;
  link: Pick<ControllerLink, "ctl" | "failover" | "replicas">;
  nodeProlog: NodeProlog;
  logger: Pick<ConsolaInstance, "warn">;
}

export interface StepChecks {
  stepHooks(req: RunTasksRequest): Promise<StepHooks>;
  verifyJob(jobId: number, uid: number): Promise<{ why: string; owner: number }>;
}

export function createStepChecks(d: StepHookDeps): StepChecks {
  const { deps, logger, nodeProlog } = d;
  const { spool, node } = deps;

  /** The controller's record of an srun step's job, for checkStepClaim; undefined when no controller answers. */
  async function fetchJob(jobId: number): Promise<JobInfo | undefined | "unreachable"> {
    for (let attempt = 0; attempt <= d.link.replicas(); attempt++) {
      try {
        const r = await d.link.ctl().listJobs({ jobIds: [jobId], includeFinished: true }, { timeoutMs: 5000 });
        return r.jobs.find((j) => j.jobId === jobId);
      } catch (error) {
        d.link.failover(error);
      }
    }
    return "unreachable";
  }

  /** The job as this node's own batch launch recorded it (root's launch.json), while its script runs here. */
  function localJob(jobId: number): JobRecordView | undefined {
    const dir = jobDir(spool, jobId);
    const launch = readJson<LaunchFile>(join(dir, "launch.json"));
    if (launch === undefined || launch.share === undefined || existsSync(join(dir, "status.json"))) return undefined;
    return { jobId, uid: launch.uid, state: "RUNNING", alloc: [{ node: node.name, ...launch.share }] };
  }

  async function verifyStep(req: RunTasksRequest): Promise<{ why: string; job?: JobInfo }> {
    const alloc = req.alloc;
    const claimOf = (jobUid: number | undefined) => ({
      jobId: req.jobId, uid: req.uid === 0 && jobUid !== undefined ? jobUid : req.uid, node: node.name,
      cpus: alloc?.cpus ?? 0, memMib: alloc?.memMib ?? 0, gpuIndices: alloc?.gpuIndices ?? [], cpuIds: alloc?.cpuIds,
    });
    // srun inside a batch script (the common case) is checked here, without a round trip to the controller.
    const local = localJob(req.jobId);
    if (local !== undefined && checkStepClaim(claimOf(local.uid), local) === "") return { why: "" };
    const job = await fetchJob(req.jobId);
    if (job === "unreachable") return { why: "the controller cannot be reached to check the step's job" };
    const claim = claimOf(job?.uid);
    const view: JobRecordView | undefined = job === undefined ? undefined : { jobId: job.jobId, uid: job.uid, state: job.state, alloc: job.alloc };
    return { why: checkStepClaim(claim, view), ...(job ? { job } : {}) };
  }

  async function verifyJob(jobId: number, uid: number): Promise<{ why: string; owner: number }> {
    const found = localJob(jobId) ?? (await fetchJob(jobId));
    if (found === "unreachable") return { why: "the controller cannot be reached to check the job", owner: -1 };
    const view = found === undefined ? undefined : { jobId: found.jobId, uid: found.uid, state: found.state, alloc: found.alloc };
    const claim = { jobId, uid: uid === 0 && view !== undefined ? view.uid : uid, node: node.name, cpus: 0, memMib: 0, gpuIndices: [] };
    return { why: checkStepClaim(claim, view), owner: view?.uid ?? -1 };
  }

  async function stepHooks(req: RunTasksRequest): Promise<StepHooks> {
    const { why: invalid, job: record } = await verifyStep(req);
    if (invalid !== "") {
      logger.warn({ message: "srun step refused", jobId: req.jobId, uid: req.uid, why: invalid });
      return {
        setupProblem: `Invalid job credential: ${invalid}`, contained: undefined, sampleSec: deps.sampleSec, node: node.name,
        taskProlog: "", taskEpilog: "", ended() {},
      };
    }
    const alloc = req.alloc;
    const share = { cpus: alloc?.cpus ?? 0, memMib: alloc?.memMib ?? 0, gpuIndices: deviceGpus(alloc ?? { gpuIndices: [] }), socketCpus: alloc?.socketCpus, cpuIds: alloc?.cpuIds };
    const hasBatch = existsSync(join(jobDir(spool, req.jobId), "launch.json"));
    // The batch host ran the Prolog before the script; any other node runs it before the job's first step there.
    // The Prolog's facts come from the controller's record (checked above), not from the request.
    const recorded = record === undefined ? undefined : jobFacts(node.name, record, req.tasks[0]?.env.SLURM_CLUSTER_NAME ?? "");
    const prologProblem = hasBatch ? "" : await nodeProlog.ensure(recorded ?? stepFacts(req));
    const contained = prologProblem !== "" ? undefined : deps.containment.planFor(req.jobId, String(req.stepId), share);
    const setupProblem = prologProblem !== "" ? prologProblem : contained === undefined ? "" : await setUpCgroup(contained.plan);
    const env = req.tasks[0]?.env ?? {};
    const launch = planContainer(containerSite(deps), {
      jobId: req.jobId, step: String(req.stepId), env, gpuIndices: share.gpuIndices, workDir: req.workDir || "/", uid: req.uid, gid: req.gid,
    });
    let container: { launch: ContainerLaunch; rootfs: Rootfs } | undefined;
    let containerError = "";
    if (launch !== undefined && setupProblem === "") {
      const prepared = await prepareContainer(launch);
      if (prepared.ok) container = { launch, rootfs: prepared.rootfs };
      else containerError = errorLines(launch, prepared.problem);
    }
    return {
      setupProblem,
      containerError,
      ...(container ? { container } : {}),
      contained, sampleSec: deps.sampleSec, node: node.name, taskProlog: deps.scripts.taskProlog, taskEpilog: deps.scripts.taskEpilog,
      gpuUniqueIds: deps.gpuUniqueIds ?? [],
      selfExec: deps.selfExec,
      ended(usage) {
        // A job of srun steps only keeps its cores until its last running step here has ended.
        const stepsLeft = [...runningSteps.values()].some((s) => s.jobId === req.jobId);
        if (!stepsLeft && !existsSync(join(jobDir(spool, req.jobId), "launch.json"))) deps.containment.release(req.jobId);
        if (contained !== undefined) removeTrees(contained.plan.jobDirs, true);
        if (container !== undefined) void releaseContainer(container.launch, container.rootfs, req.tasks.length);
        if (usage === undefined) return;
        void d.link.ctl().recordStepUsage({ node: node.name, jobId: req.jobId, stepId: req.stepId, usage }, { timeoutMs: 5000 }).catch((error: unknown) => {
          logger.warn({ message: "step usage not recorded", jobId: req.jobId, stepId: req.stepId, error: String(error) });
        });
      },
    };
  }

  /** The Prolog's facts for a step's job, from the step request and its tasks' SLURM_* variables. */
  function stepFacts(req: RunTasksRequest): JobFacts {
    const env = req.tasks[0]?.env ?? req.env;
    return {
      jobId: req.jobId, user: req.user, uid: req.uid, gid: req.gid, partition: env.SLURM_JOB_PARTITION ?? "", nodelist: env.SLURM_JOB_NODELIST ?? node.name,
      account: env.SLURM_JOB_ACCOUNT ?? "", name: env.SLURM_JOB_NAME ?? "", clusterName: env.SLURM_CLUSTER_NAME ?? "", node: node.name,
      gpuIndices: [...(req.alloc?.gpuIndices ?? [])], workDir: req.workDir,
    };
  }

  return { stepHooks, verifyJob };
}
