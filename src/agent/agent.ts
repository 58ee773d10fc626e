/**
 * @module agent/agent
 * The node agent's core: launches batch scripts through a detached stepd,
 * signals and terminates jobs, reports every ended script to the controller
 * until the controller acknowledges it (the spool keeps it across restarts),
 * and registers and heartbeats. Failure policy: a controller that does not
 * answer is retried forever; nothing is lost while it is away.
 */
import { spawn } from "node:child_process";
import { chownSync, closeSync, existsSync, openSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConsolaInstance } from "consola/core";
import { createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Controller } from "../net/gen/spur/v1/controller_pb.ts";
import type { LaunchBatchRequest, SignalJobRequest } from "../net/gen/spur/v1/agent_pb.ts";
import type { NodeInfoP } from "../sched/model/types.ts";
import { toPlain } from "../lib/to-plain.ts";
import { buildBatchEnv } from "../compat/job-env.ts";
import { PROTOCOL_VERSION } from "../version.ts";
import { cannotRunAs } from "./run-as.ts";
import { killJobSteps } from "./tasks.ts";
import {
  createJobDir, isAlive, jobDir, processMatches, listJobIds, readJson, readPid, removeJobDir, writeJson, type LaunchFile, type StatusFile,
} from "./spool.ts";

export interface AgentDeps {
  node: NodeInfoP;
  /** Device file per GPU index of this node (gres.conf File= or discovery); may be empty. */
  gpuFiles?: string[];
  /** CPUs local to each GPU index (gres.conf Cores= or discovery); may be empty. */
  gpuCpus?: string[];
  spool: string;
  controllerUrl: string;
  confPath: string;
  logger: ConsolaInstance;
  /** Command that runs this same binary (for `stepd`). */
  selfExec: string[];
}

export interface Agent {
  launchBatch(req: LaunchBatchRequest): void;
  signalJob(req: SignalJobRequest): boolean;
  runningJobIds(): number[];
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
  const ctl: Client<typeof Controller> = createClient(
    Controller,
    createConnectTransport({ baseUrl: deps.controllerUrl, httpVersion: "1.1" }),
  );
  let registered = false;
  let heartbeatMs = 2000;
  let lastBeatMs = 0;

  function launchBatch(req: LaunchBatchRequest): void {
    const job = toPlain(req.job);
    if (job === undefined) throw new Error("launch without job");
    const why = cannotRunAs(job.uid);
    if (why !== "") throw new Error(why);
    if (existsSync(join(jobDir(spool, job.jobId), "stepd.pid"))) return; // duplicate launch: idempotent
    const dir = createJobDir(spool, job.jobId);
    const gpuIndices = job.alloc.find((a) => a.node === node.name)?.gpuIndices ?? [];
    const env = buildBatchEnv(job, {
      clusterName: req.clusterName, nodeName: node.name, nodeIndex: 0, submitEnv: { ...req.env }, confPath: deps.confPath,
      gpuIndicesOnNode: gpuIndices, constrainDevices: false,
      spec: toPlain(req.spec),
    });
    writeFileSync(join(dir, "script"), req.script, { mode: 0o700 });
    const launch: LaunchFile = {
      jobId: job.jobId, uid: job.uid, gid: job.gid, user: job.user, workDir: existsSync(job.workDir) ? job.workDir : "/tmp",
      stdOut: job.stdOut, stdErr: job.stdErr, stdIn: job.stdIn, openMode: req.openMode, env, argv: req.argv,
      killWaitSec: job.killWaitSec,
      gpuIndices, gpuDeviceFiles: gpuIndices.map((i) => deps.gpuFiles?.[i] ?? ""), gpuLocalCpus: gpuIndices.map((i) => deps.gpuCpus?.[i] ?? ""),
    };
    writeJson(join(dir, "launch.json"), launch);
    if (process.getuid?.() === 0) for (const f of ["", "script"]) chownSync(join(dir, f), job.uid, job.gid);
    const logFd = openSync(join(dir, "stepd.log"), "a");
    const [cmd, ...args] = deps.selfExec;
    const stepd = spawn(cmd ?? process.execPath, [...args, "stepd", dir], { detached: true, stdio: ["ignore", logFd, logFd] });
    closeSync(logFd);
    writeFileSync(join(dir, "stepd.pid"), String(stepd.pid ?? 0));
    stepd.unref();
    logger.info({ message: "batch script started", jobId: job.jobId, pid: stepd.pid });
  }

  function signalJob(req: SignalJobRequest): boolean {
    const dir = jobDir(spool, req.jobId);
    const hasBatch = existsSync(join(dir, "launch.json"));
    if (req.signal === 0) {
      if (hasBatch) {
        writeJson(join(dir, "end-reason.json"), { reason: req.reason || "CANCELLED" });
        const pid = readPid(dir, "stepd.pid");
        if (pid !== undefined && isOurStepd(dir, pid)) process.kill(pid, "SIGTERM");
      }
      killJobSteps(req.jobId, "SIGTERM");
      setTimeout(() => killJobSteps(req.jobId, "SIGKILL"), Math.max(1, req.killWaitSec) * 1000).unref();
      return true;
    }
    const sig = req.signal;
    const child = readPid(dir, "child.pid");
    if (child !== undefined) {
      try {
        process.kill(req.batchOnly ? child : -child, sig);
      } catch {
        /* already gone */
      }
    }
    if (!req.batchOnly) killJobSteps(req.jobId, sig as unknown as NodeJS.Signals);
    return hasBatch;
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
        writeJson(join(dir, "status.json"), status);
      }
      try {
        await ctl.batchComplete({ node: node.name, jobId, ...status }, { timeoutMs: 5000 });
        removeJobDir(spool, jobId);
        logger.info({ message: "job end reported", jobId, exitCode: status.exitCode, outcome: status.outcome });
      } catch {
        return; // controller away: try again on the next turn
      }
    }
  }

  function killReported(ids: number[]): void {
    for (const jobId of ids) signalJob({ jobId, signal: 0, reason: "CANCELLED", killWaitSec: 1, batchOnly: false, stepId: -1 } as SignalJobRequest);
  }

  async function tick(): Promise<void> {
    if (registered) await reportEnded();
    try {
      if (!registered) {
        const r = await ctl.registerNode(
          { node, runningJobIds: runningJobIds(), protocolVersion: PROTOCOL_VERSION },
          { timeoutMs: 5000 },
        );
        registered = true;
        heartbeatMs = r.heartbeatIntervalMs || heartbeatMs;
        killReported(r.killJobIds);
        logger.info({ message: "registered", node: node.name, controller: deps.controllerUrl });
      } else if (Date.now() - lastBeatMs >= heartbeatMs) {
        lastBeatMs = Date.now();
        const r = await ctl.heartbeat({ node: node.name, runningJobIds: runningJobIds() }, { timeoutMs: 5000 });
        if (r.reregister) registered = false;
        killReported(r.killJobIds);
      }
    } catch (error) {
      if (registered) logger.warn({ message: "controller not answering", error: String(error) });
      if (String(error).includes("protocol version")) logger.error({ message: String(error) });
      registered = false;
    }
  }

  return {
    launchBatch,
    signalJob,
    runningJobIds,
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
