/**
 * @module agent/batch-launch
 * Starting a batch script: the job folder in the spool (script, launch.json with everything
 * stepd needs: environment, share, cgroup plan, container plan), then a detached stepd that
 * outlives this agent. Idempotent: a second launch of the same job does nothing.
 * Failure policy: a request that cannot run as its user throws (the controller requeues).
 */
import { spawn } from "node:child_process";
import { chownSync, closeSync, existsSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBatchEnv } from "../compat/job-env.ts";
import { toPlain } from "../lib/to-plain.ts";
import type { LaunchBatchRequest } from "../net/gen/spur/v1/agent_pb.ts";
import type { AgentDeps } from "./agent-api.ts";
import { containerSite, deviceGpus } from "./agent-site.ts";
import { planContainer } from "./container/launch.ts";
import { cannotRunAs } from "./run-as.ts";
import { createJobDir, jobDir, type LaunchFile, writeJson } from "./spool.ts";
import { stepdEnv } from "./user-launch.ts";

export function launchBatch(deps: AgentDeps, req: LaunchBatchRequest): void {
  const { spool, node, logger } = deps;
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
  const container = planContainer(containerSite(deps), {
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
