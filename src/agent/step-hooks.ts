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
import type { AgentDeps } from "./agent-api.ts";
import { containerSite, deviceGpus, jobFacts, stepFacts } from "./agent-site.ts";
import { setUpCgroup, removeTrees } from "./cgroup/fs.ts";
import { errorLines, planContainer, prepareContainer, releaseContainer, type ContainerLaunch } from "./container/launch.ts";
import type { Rootfs } from "./container/rootfs.ts";
import type { ControllerLink } from "./controller-link.ts";
import type { NodeProlog } from "./node-prolog.ts";
import { createJobChecks } from "./job-check.ts";
import { jobDir } from "./spool.ts";
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
  const jobs = createJobChecks(spool, node.name, d.link);

  async function stepHooks(req: RunTasksRequest): Promise<StepHooks> {
    const { why: invalid, job: record } = await jobs.verifyStep(req);
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
    const prologProblem = hasBatch ? "" : await nodeProlog.ensure(recorded ?? stepFacts(node.name, req));
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

  return { stepHooks, verifyJob: jobs.verifyJob };
}
