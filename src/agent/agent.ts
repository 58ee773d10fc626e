/**
 * @module agent/agent
 * The node agent's core: launches batch scripts through a detached stepd,
 * signals and terminates jobs, reports every ended script to the controller
 * until the controller acknowledges it (the spool keeps it across restarts),
 * and registers and heartbeats. Failure policy: a controller that does not
 * answer is retried forever; nothing is lost while it is away.
 */
import { sharingGpusOf } from "../compat/gres-generic.ts";
import { spawn } from "node:child_process";
import { chownSync, closeSync, existsSync, openSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConsolaInstance } from "consola/core";
import { ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { agentAuthInterceptor } from "../net/cluster-auth.ts";
import { connectTls } from "../net/tls.ts";
import { Controller } from "../net/gen/spur/v1/controller_pb.ts";
import type { LaunchBatchRequest, RunPrologRequest, RunTasksRequest, SignalJobRequest, StepStatsRequest } from "../net/gen/spur/v1/agent_pb.ts";
import type { JobInfo, StepInfo } from "../net/gen/spur/v1/types_pb.ts";
import type { NodeInfoP } from "../sched/model/types.ts";
import { toPlain } from "../lib/to-plain.ts";
import type { Plain } from "../lib/plain.ts";
import { buildBatchEnv } from "../compat/job-env.ts";
import { PROTOCOL_VERSION } from "../version.ts";
import { cannotRunAs } from "./run-as.ts";
import { stepdEnv } from "./user-launch.ts";
import { checkStepClaim, type JobRecordView } from "./step-check.ts";
import { killJobSteps, runningSteps, stepGroups, type StepHooks } from "./tasks.ts";
import { createNodeProlog } from "./node-prolog.ts";
import { liveSteps } from "./step-stats.ts";
import type { Containment } from "./containment.ts";
import type { JobFacts, SiteScripts } from "./prolog.ts";
import { errorLines, planContainer, prepareContainer, releaseContainer, type ContainerLaunch } from "./container/launch.ts";
import type { Rootfs } from "./container/rootfs.ts";
import { spoolTag } from "./containment.ts";
import { listPids as listStepPids } from "./list-pids.ts";
import { killTree, listPids, removeTrees, setUpCgroup, signalPids } from "./cgroup/fs.ts";
import {
  createJobDir, isAlive, jobDir, processMatches, listJobIds, readJson, readPid, removeJobDir, writeJson, type LaunchFile, type StatusFile,
} from "./spool.ts";

export interface AgentDeps {
  node: NodeInfoP;
  /** Device file per GPU index of this node (gres.conf File= or discovery); may be empty. */
  gpuFiles?: string[];
  /** CPUs local to each GPU index (gres.conf Cores= or discovery); may be empty. */
  gpuCpus?: string[];
  /** Unique id per GPU index (MIG UUIDs, which the visible-device variables carry); may be empty. */
  gpuUniqueIds?: string[];
  spool: string;
  controllerUrl: string;
  /** Replicated controllers: every replica, tried in turn and following "not leader" hints. */
  controllerUrls?: string[];
  /** The cluster secret (SpurClusterSecretFile=): every call to a controller is signed with it. */
  clusterSecret?: string;
  confPath: string;
  logger: ConsolaInstance;
  /** Command that runs this same binary (for `stepd`). */
  selfExec: string[];
  containment: Containment;
  /** Seconds between usage samples of running jobs (JobAcctGatherFrequency task=N). */
  sampleSec: number;
  /** Prolog, Epilog, TaskProlog, TaskEpilog from spur.conf. */
  scripts: SiteScripts;
  /** spur.conf ContainerRuntime= and CDISpecDirs= (containers: agent/container). */
  container?: { runtime: string; cdiSpecDirs: string[] };
}

export interface Agent {
  launchBatch(req: LaunchBatchRequest): void;
  signalJob(req: SignalJobRequest): boolean;
  runningJobIds(): number[];
  /** Containment (cgroup set up) and usage reporting for the tasks of an srun step on this node. */
  stepHooks(req: RunTasksRequest): Promise<StepHooks>;
  /** Running steps' usage so far (sstat). */
  stepStats(req: StepStatsRequest): Plain<StepInfo>[];
  /** scontrol listpids: the processes of the job steps here (agent/list-pids.ts). */
  listPids(req: { jobId: number; stepId?: number | undefined }, caller: { uid: number; privileged: boolean }): ReturnType<typeof listStepPids>;
  /** PrologFlags=Alloc: the node Prolog at allocation; "" when it ran (or had run), else why not. */
  runProlog(req: RunPrologRequest): Promise<string>;
  /** sbcast: may `uid` (root: anyone's) write files for job `jobId` here? The job owner's uid, or why not. */
  verifyJob(jobId: number, uid: number): Promise<{ why: string; owner: number }>;
  start(): () => void;
}

/** Right after spawn the child may not have exec'd yet, so its command line is still ours. */
const EXEC_GRACE_MS = 10_000;

/**
 * Whether `pid` is this job's stepd: alive, and either its command line names stepd and the
 * job folder, or it was started moments ago (before exec the command line is the parent's).
 */
function isOurStepd(dir: string, pid: number): boolean {
  if (!isAlive(pid)) return false;
  if (processMatches(pid, ["stepd", dir])) return true;
  try {
    return Date.now() - statSync(join(dir, "stepd.pid")).mtimeMs < EXEC_GRACE_MS;
  } catch {
    return false;
  }
}

export function createAgent(deps: AgentDeps): Agent {
  const { spool, logger, node } = deps;
  const urls = deps.controllerUrls !== undefined && deps.controllerUrls.length > 0 ? [...deps.controllerUrls] : [deps.controllerUrl];
  let currentUrl = urls[0] as string;
  const interceptors = deps.clusterSecret === undefined ? [] : [agentAuthInterceptor(deps.clusterSecret, node.name)];
  const clientFor = (url: string): Client<typeof Controller> => createClient(Controller, createConnectTransport({ baseUrl: url, httpVersion: "1.1", interceptors, ...connectTls(url) }));
  let ctl: Client<typeof Controller> = clientFor(currentUrl);
  /** After a failed call: go to the leader the answer named, else to the next replica. */
  function failover(error: unknown): void {
    if (urls.length < 2) return;
    const hinted = error instanceof ConnectError ? (error.metadata.get("x-spur-leader") ?? "") : "";
    // A leader missing from our list (a controller added at run time) is followed and kept.
    if (/^https?:\/\/\S+$/.test(hinted) && !urls.includes(hinted)) urls.push(hinted);
    const next = hinted !== "" && urls.includes(hinted) ? hinted : (urls[(urls.indexOf(currentUrl) + 1) % urls.length] as string);
    if (next === currentUrl) return;
    currentUrl = next;
    ctl = clientFor(next);
    registered = false;
  }
  const nodeProlog = createNodeProlog({
    spool, node: node.name, scripts: deps.scripts,
    stepsRunning: (jobId) => (stepGroups.get(jobId)?.size ?? 0) > 0,
    async report(r) {
      // Job id 0 names no job: the controller only drains the node (Epilog).
      const body = "outcome" in r
        ? { node: node.name, jobId: r.jobId, exitCode: 1, exitSignal: 0, outcome: r.outcome, endTime: Date.now() / 1000 }
        : { node: node.name, jobId: 0, exitCode: 0, exitSignal: 0, outcome: "", endTime: Date.now() / 1000, drainReason: r.drainReason };
      logger.warn({ message: "outcome" in r ? "Prolog failed" : r.message, node: node.name, ...("jobId" in r ? { jobId: r.jobId } : {}) });
      await ctl.batchComplete(body, { timeoutMs: 5000 });
    },
  });
  let registered = false;
  let heartbeatMs = 2000;
  let lastBeatMs = 0;

  const containerSite = () => ({
    runtime: deps.container?.runtime ?? "", cdiSpecDirs: deps.container?.cdiSpecDirs ?? [], spool, tag: spoolTag(spool), gpuFiles: deps.gpuFiles ?? [],
  });

  function launchBatch(req: LaunchBatchRequest): void {
    const job = toPlain(req.job);
    if (job === undefined) throw new Error("launch without job");
    const why = cannotRunAs(job.uid);
    if (why !== "") throw new Error(why);
    if (existsSync(join(jobDir(spool, job.jobId), "stepd.pid"))) return; // duplicate launch: idempotent
    const dir = createJobDir(spool, job.jobId);
    const share = job.alloc.find((a) => a.node === node.name) ?? { cpus: job.numCpus, memMib: 0, gpuIndices: [] };
    // the devices the job may open: its whole GPUs and the GPU its shards or MPS sit on
    const devices = deviceGpus(share);
    const contained = deps.containment.planFor(job.jobId, "batch", { ...share, gpuIndices: devices });
    // Entered by the user's shell, not checked here as root (a missing or forbidden one: /tmp, as Slurm).
    const workDir = job.workDir || "/tmp";
    const container = planContainer(containerSite(), {
      jobId: job.jobId, step: "batch", env: { ...req.env }, gpuIndices: devices, workDir, uid: job.uid, gid: job.gid,
    });
    const env = buildBatchEnv(job, {
      clusterName: req.clusterName, nodeName: node.name, nodeIndex: 0, submitEnv: { ...req.env }, confPath: deps.confPath,
      // In a container only the job's GPUs exist: visible-device variables count from 0 (as with ConstrainDevices).
      gpuIndicesOnNode: share.gpuIndices, constrainDevices: (contained?.constrainDevices ?? false) || container !== undefined,
      // MIG instances go by their unique id in the visible-device lists.
      gpuUniqueIds: deps.gpuUniqueIds ?? [],
      spec: toPlain(req.spec),
    });
    writeFileSync(join(dir, "script"), req.script, { mode: 0o700 });
    const launch: LaunchFile = {
      jobId: job.jobId, restarts: job.restarts, uid: job.uid, gid: job.gid, user: job.user, workDir,
      stdOut: job.stdOut, stdErr: job.stdErr, stdIn: job.stdIn, openMode: req.openMode, env, argv: req.argv,
      killWaitSec: job.killWaitSec, node: node.name, sampleSec: deps.sampleSec, scripts: deps.scripts,
      facts: {
        jobId: job.jobId, user: job.user, uid: job.uid, gid: job.gid, partition: job.partition, nodelist: job.nodelist,
        account: job.account, name: job.name, clusterName: req.clusterName, node: node.name, gpuIndices: [...share.gpuIndices],
        workDir: job.workDir,
      },
      share: { cpus: share.cpus, memMib: share.memMib, gpuIndices: [...share.gpuIndices], ...("cpuIds" in share && share.cpuIds ? { cpuIds: share.cpuIds } : {}) },
      ...(contained ? { cgroup: contained.plan, cpuIds: contained.cpuIds } : {}),
      gpuIndices: [...share.gpuIndices],
      gpuDeviceFiles: share.gpuIndices.map((i) => deps.gpuFiles?.[i] ?? ""),
      gpuLocalCpus: share.gpuIndices.map((i) => deps.gpuCpus?.[i] ?? ""),
      ...(container ? { container } : {}),
    };
    writeJson(join(dir, "launch.json"), launch);
    // The folder stays root's (the user may enter it, not change it: launch.json and status.json are
    // trusted by root); only the script is the user's, readable by no one else.
    if (process.getuid?.() === 0) chownSync(join(dir, "script"), job.uid, job.gid);
    const logFd = openSync(join(dir, "stepd.log"), "a", 0o600);
    const [cmd, ...args] = deps.selfExec;
    const stepd = spawn(cmd ?? process.execPath, [...args, "stepd", dir], { detached: true, stdio: ["ignore", logFd, logFd], env: stepdEnv(process.env) });
    closeSync(logFd);
    writeFileSync(join(dir, "stepd.pid"), String(stepd.pid ?? 0));
    stepd.unref();
    logger.info({ message: "batch script started", jobId: job.jobId, pid: stepd.pid });
  }

  function signalJob(req: SignalJobRequest): boolean {
    const dir = jobDir(spool, req.jobId);
    const hasBatch = existsSync(join(dir, "launch.json"));
    if (req.stepId >= 0) {
      // scancel J.S: that step's tasks only; a cancel kills them at once (Slurm's step kill).
      killJobSteps(req.jobId, req.signal === 0 ? "SIGKILL" : req.signal, req.stepId);
      return hasBatch;
    }
    if (req.signal === 0) {
      if (hasBatch) {
        writeJson(join(dir, "end-reason.json"), { reason: req.reason || "CANCELLED" });
        const pid = readPid(dir, "stepd.pid");
        if (pid !== undefined && isOurStepd(dir, pid)) process.kill(pid, "SIGTERM");
      }
      killJobSteps(req.jobId, "SIGTERM");
      // A suspended (SIGSTOPped) job must run to act on SIGTERM, as Slurm sends SIGCONT too.
      signalAll(dir, req.jobId, "SIGCONT");
      setTimeout(() => killJobSteps(req.jobId, "SIGKILL"), Math.max(1, req.killWaitSec) * 1000).unref();
      // No batch script here: this node's Epilog (its Prolog ran at the first step) once the steps are gone.
      if (!hasBatch) void nodeProlog.ended(req.jobId, (Math.max(1, req.killWaitSec) + 2) * 1000, jobFacts(req.job, req.clusterName));
      return true;
    }
    const sig = req.signal;
    if (req.stepsOnly) {
      killJobSteps(req.jobId, sig as unknown as NodeJS.Signals);
      return hasBatch;
    }
    if (req.batchOnly) {
      const child = readPid(dir, "child.pid");
      try {
        if (child !== undefined) process.kill(child, sig);
      } catch {
        /* already gone */
      }
      return hasBatch;
    }
    signalAll(dir, req.jobId, sig);
    return hasBatch;
  }

  /** Every process of the job here: its cgroup (double-forked ones too, as Slurm) or the batch group, and its steps. */
  function signalAll(dir: string, jobId: number, sig: number | NodeJS.Signals): void {
    const child = readPid(dir, "child.pid");
    const cg = existsSync(join(dir, "launch.json")) ? readJson<LaunchFile>(join(dir, "launch.json"))?.cgroup : undefined;
    if (cg !== undefined) {
      signalPids(listPids(cg.trackDir), sig);
    } else if (child !== undefined) {
      try {
        process.kill(-child, sig);
      } catch {
        /* already gone */
      }
    }
    killJobSteps(jobId, sig as NodeJS.Signals);
  }

  /** Jobs this node still holds: running, or ended with the end not yet acknowledged (so never "lost"). */
  function runningJobIds(): number[] {
    return listJobIds(spool);
  }

  async function reportEnded(): Promise<void> {
    for (const jobId of listJobIds(spool)) {
      const dir = jobDir(spool, jobId);
      let status = readJson<StatusFile>(join(dir, "status.json"));
      if (status === undefined) {
        const stepd = readPid(dir, "stepd.pid");
        if (stepd === undefined || isOurStepd(dir, stepd)) continue;
        // stepd vanished without a word (killed, node rebooted): the job is lost with it.
        status = { exitCode: 0, exitSignal: 9, outcome: "NODE_FAIL", endTime: Date.now() / 1000, message: "stepd lost" };
        await killOrphanedCgroup(dir);
        writeJson(join(dir, "status.json"), status);
      }
      try {
        const restarts = readJson<LaunchFile>(join(dir, "launch.json"))?.restarts;
        await ctl.batchComplete({ node: node.name, jobId, ...status, ...(restarts === undefined ? {} : { restarts }) }, { timeoutMs: 5000 });
        removeJobDir(spool, jobId);
        logger.info({ message: "job end reported", jobId, exitCode: status.exitCode, outcome: status.outcome, ...(status.message ? { why: status.message } : {}) });
      } catch (error) {
        failover(error);
        return; // controller away: try again on the next turn
      }
    }
  }

  /** A job whose stepd vanished: nothing of it may keep running (its cgroup still knows every process). */
  async function killOrphanedCgroup(dir: string): Promise<void> {
    const cg = readJson<LaunchFile>(join(dir, "launch.json"))?.cgroup;
    if (cg === undefined) return;
    await killTree(cg.kill, cg.trackDir);
    removeTrees(cg.jobDirs);
  }

  function killReported(ids: number[]): void {
    for (const jobId of ids) signalJob({ jobId, signal: 0, reason: "CANCELLED", killWaitSec: 1, batchOnly: false, stepsOnly: false, stepId: -1 } as SignalJobRequest);
  }

  // A controller that refuses this agent's protocol is asked again every 5 s (not every turn), and the
  // refusal is logged once per distinct message instead of four times a second.
  let refusedUntilMs = 0;
  let lastRefusal = "";

  async function tick(): Promise<void> {
    if (registered) await reportEnded();
    try {
      if (!registered) {
        if (Date.now() < refusedUntilMs) return;
        const r = await ctl.registerNode(
          { node, runningJobIds: runningJobIds(), protocolVersion: PROTOCOL_VERSION },
          { timeoutMs: 5000 },
        );
        registered = true;
        heartbeatMs = r.heartbeatIntervalMs || heartbeatMs;
        killReported(r.killJobIds);
        logger.info({ message: "registered", node: node.name, controller: currentUrl });
      } else if (Date.now() - lastBeatMs >= heartbeatMs) {
        lastBeatMs = Date.now();
        const r = await ctl.heartbeat({ node: node.name, runningJobIds: runningJobIds() }, { timeoutMs: 5000 });
        if (r.reregister) registered = false;
        killReported(r.killJobIds);
      }
    } catch (error) {
      if (registered) logger.warn({ message: "controller not answering", error: String(error) });
      if (String(error).includes("protocol version")) {
        refusedUntilMs = Date.now() + 5000;
        if (String(error) !== lastRefusal) logger.error({ message: String(error), node: node.name });
        lastRefusal = String(error);
      }
      registered = false;
      failover(error);
    }
  }

  /** The controller's record of an srun step's job, for checkStepClaim; undefined when no controller answers. */
  async function fetchJob(jobId: number): Promise<JobInfo | undefined | "unreachable"> {
    for (let attempt = 0; attempt <= urls.length; attempt++) {
      try {
        const r = await ctl.listJobs({ jobIds: [jobId], includeFinished: true }, { timeoutMs: 5000 });
        return r.jobs.find((j) => j.jobId === jobId);
      } catch (error) {
        failover(error);
      }
    }
    return "unreachable";
  }

  /** "" when the step may run here, else why not (see step-check.ts); root may run steps in any job. */
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
    const recorded = record === undefined ? undefined : jobFacts(record, req.tasks[0]?.env.SLURM_CLUSTER_NAME ?? "");
    const prologProblem = hasBatch ? "" : await nodeProlog.ensure(recorded ?? stepFacts(req));
    const contained = prologProblem !== "" ? undefined : deps.containment.planFor(req.jobId, String(req.stepId), share);
    const setupProblem = prologProblem !== "" ? prologProblem : contained === undefined ? "" : await setUpCgroup(contained.plan);
    const env = req.tasks[0]?.env ?? {};
    const launch = planContainer(containerSite(), {
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
        void ctl.recordStepUsage({ node: node.name, jobId: req.jobId, stepId: req.stepId, usage }, { timeoutMs: 5000 }).catch((error: unknown) => {
          logger.warn({ message: "step usage not recorded", jobId: req.jobId, stepId: req.stepId, error: String(error) });
        });
      },
    };
  }

  /** The Prolog/Epilog facts of a job the controller sent. */
  function jobFacts(info: RunPrologRequest["job"], clusterName: string): JobFacts | undefined {
    const job = toPlain(info);
    if (job === undefined) return undefined;
    const share = job.alloc.find((a) => a.node === node.name);
    return {
      jobId: job.jobId, user: job.user, uid: job.uid, gid: job.gid, partition: job.partition, nodelist: job.nodelist, account: job.account,
      name: job.name, clusterName, node: node.name, gpuIndices: [...(share?.gpuIndices ?? [])], workDir: job.workDir,
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

  return {
    launchBatch,
    signalJob,
    runningJobIds,
    stepHooks,
    verifyJob,
    stepStats: (req) => liveSteps(spool, node.name, req.jobId, req.stepId),
    listPids: (req, caller) => listStepPids(spool, req.stepId === undefined ? { jobId: req.jobId } : { jobId: req.jobId, stepId: req.stepId }, caller),
    async runProlog(req) {
      const facts = jobFacts(req.job, req.clusterName);
      return facts === undefined ? "no job" : nodeProlog.ensure(facts);
    },
    start() {
      let stopped = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const loop = async () => {
        if (stopped) return;
        await tick();
        timer = setTimeout(loop, 250);
      };
      void loop();
      return () => {
        stopped = true;
        if (timer) clearTimeout(timer);
      };
    },
  };
}

/** A share's whole GPUs and the GPUs its shards or MPS sit on: the devices its processes may open. */
function deviceGpus(share: { gpuIndices: readonly number[]; gres?: string | undefined }): number[] {
  return [...new Set([...share.gpuIndices, ...sharingGpusOf(share.gres)])].sort((a, b) => a - b);
}
