/**
 * @module roles/cli/step-launch
 * What srun does once it has an allocation: ask the controller for a step,
 * open srun's message port (srun-launcher.ts: the agents report task exits to
 * it), start the step's tasks on every node's agent (each task with its own
 * SLURM_* environment; its stdin is srun's own (srun-stdin.ts), /dev/null or
 * its `-i` file), route their output to
 * this terminal (`-l` labels lines with the task rank) or the `-o/-e` files
 * (task-output.ts), and report the step's end. The step's exit code is the
 * highest task exit code, as srun returns it.
 */
import { strerrorOf } from "../../lib/strerror.ts";
import { credentialInterceptor } from "../../net/auth/client-cred.ts";
import { nodeAudience } from "../../net/auth/types.ts";
import { arbitraryRanks, isArbitrary, taskRanks } from "../../compat/task-layout.ts";
import { expandHostlist } from "../../compat/hostlist.ts";

const expandOrEmpty = (expr: string): string[] => {
  const r = expandHostlist(expr);
  return r.ok ? r.value : [];
};
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { connectTls, rpcUrl } from "../../net/tls.ts";
import { Agent } from "../../net/gen/spur/v1/agent_pb.ts";
import type { Plain } from "../../lib/plain.ts";
import type { JobInfo, JobSpec } from "../../net/gen/spur/v1/types_pb.ts";
import type { StepCreateResponse } from "../../net/gen/spur/v1/controller_pb.ts";
import type { TaskSetup } from "../../net/gen/spur/v1/agent_pb.ts";
import { buildStepTaskEnv } from "../../compat/job-env.ts";
import { taskGpus } from "../../compat/gpu-bind.ts";
import { taskEndLines, type TaskEnd } from "../../compat/srun-task-report.ts";
import { launcherFor } from "./srun-launcher.ts";
import { TaskOutput } from "./task-output.ts";
import { inputTarget, taskTargets, type InputTarget, type StreamTarget } from "../../compat/srun-io.ts";
import { createStdinFeed } from "./srun-stdin.ts";
import { Readable } from "node:stream";
import { mayReadStdin } from "./tty-foreground.ts";
import { createReadStream, openSync } from "node:fs";
import { PTY_REFUSED_LINES, srunTerminal } from "./srun-terminal.ts";
import { nodeOfRanks, processMapping } from "../../compat/pmi/mapping.ts";
import { waitExpiredLines, type TaskState } from "../../compat/srun-wait.ts";
import { srunScriptEnv, type SrunScriptContext } from "../../compat/srun-script-env.ts";
import { runSrunScript } from "./srun-scripts.ts";

export interface StepRequest {
  jobId: number;
  spec: Plain<JobSpec>;
  command: string[];
  label: boolean;
  baseEnv: Record<string, string>;
  confPath: string;
  clusterName: string;
  /** srun's umask (SLURM_UMASK of tasks of a new allocation). */
  umask: number;
  uid: number;
  gid: number;
  user: string;
  cwd: string;
  /** -E/--preserve-env: keep the allocation's SLURM_NNODES, SLURM_NTASKS, SLURM_NPROCS, SLURM_TASKS_PER_NODE. */
  preserveEnv?: boolean;
  /** Called once the controller created the step (srun's Ctrl-C report names it). */
  onCreated?: (step: { stepId: number; ntasks: number }, killWaitSec: number) => void;
  /** umask, soft limits, --task-prolog/--task-epilog for every task (agent/task-setup.ts). */
  setup?: Plain<TaskSetup>;
  /** srun --exact (or --cpus-per-gpu, which implies it): the step gets only the CPUs its tasks ask for. */
  exact: boolean;
  /** This srun's host name (scontrol show step SrunHost:Pid). */
  host: string;
  /** srun -v: print the allocation's `jobid N:` line and the `launching StepId=` lines (compat/options/srun-verbose). */
  verbose?: number;
  /** -u/--unbuffered: task output passed on as it arrives, not in whole lines. */
  unbuffered?: boolean;
  /** What srun forwards to the tasks that read its stdin (default: process.stdin). */
  stdin?: Readable;
  /** --multi-prog: the command line of task `taskId` on `node` (compat/multi-prog); undefined: `command` for every task. */
  taskArgv?: (taskId: number, node: string) => string[];
  /** --pty: task 0 on a pseudo-terminal, this terminal in raw mode meanwhile (srun-terminal.ts). */
  pty?: boolean;
  /** --mpi / MpiDefault: "pmi2" = every node's agent serves PMI to its tasks, "pmix" a PMIx server; fences meet at this srun. */
  mpi?: string;
  /** -W/--wait=SEC: SEC seconds after the first task exits, the remaining ones are killed (0: wait for all). */
  waitSec?: number;
  /** --interactive: salloc's interactive step (J.interactive, holding none of the job's CPUs). */
  interactive?: boolean;
  /** -K/--kill-on-bad-exit (or KillOnBadExit=1): the first task that fails terminates the step (SIGTERM). */
  killOnBadExit?: boolean;
  /** srun --prolog/--epilog (or SrunProlog/SrunEpilog): programs srun runs itself once the step exists and after it ends. */
  srunScripts?: { prolog?: string; epilog?: string };
  /** srun --bcast: the executable (resolved) copied to every node of the step first, to `dest` ("" = srun's default). */
  bcast?: { source: string; dest: string };
  /** srun A : B: this component's place in the heterogeneous step (srun-het.ts); absent for an ordinary step. */
  hetPlace?: HetPlace;
}

/**
 * One component of a heterogeneous step as its tasks see the whole step: their ranks follow the
 * earlier components' (SLURM_PROCID), and the node list, node ids and task counts are the step's.
 */
export interface HetPlace {
  /** Tasks of the earlier components: this component's task k is rank taskOffset + k. */
  taskOffset: number;
  /** The whole step's task count, its nodes (each once, in component order), tasks per node, node list. */
  ntasks: number;
  nodeNames: string[];
  tasksPerNode: number[];
  nodelist: string;
  /** The job as the tasks see it: the leader, with every component's nodes (SLURM_JOB_NODELIST, ...). */
  job: Plain<JobInfo>;
}

export interface StepCalls {
  stepCreate(req: { jobId: number; spec: Plain<JobSpec>; exact: boolean; srunHost: string; srunPid: number; interactive?: boolean }): Promise<Plain<StepCreateResponse>>;
  stepComplete(req: { jobId: number; stepId: number; exitCode: number; exitSignal: number; state: string }): Promise<unknown>;
  /** Send `signal` to every task of the step (-K/--kill-on-bad-exit). */
  signalStep?(req: { jobId: number; stepId: number; signal: number }): Promise<unknown>;
}

const pick = (r: { exitCode: number; exitSignal: number } | undefined) => (r === undefined ? {} : { exitCode: r.exitCode, exitSignal: r.exitSignal });

const PRESERVED = ["SLURM_NNODES", "SLURM_NTASKS", "SLURM_NPROCS", "SLURM_TASKS_PER_NODE"] as const;

export async function runStep(req: StepRequest, calls: StepCalls, abort: AbortSignal): Promise<{ exitCode: number; exitSignal: number }> {
  const created = await calls.stepCreate({ jobId: req.jobId, spec: req.spec, exact: req.exact, srunHost: req.host, srunPid: process.pid, interactive: req.interactive === true });
  const step = created.step;
  const job = created.job;
  if (step === undefined || job === undefined) throw new Error("controller returned no step");
  req.onCreated?.({ stepId: step.stepId, ntasks: step.ntasks }, job.killWaitSec);
  const scriptEnv = (context: SrunScriptContext) => srunScriptEnv(job, step, context, { name: req.user, uid: req.uid });
  if (req.srunScripts?.prolog !== undefined) {
    const rc = await runSrunScript(req.srunScripts.prolog, req.command, scriptEnv("prolog_srun"));
    if (rc !== 0) {
      process.stderr.write(`srun: error: srun prolog failed rc = ${rc}. Aborting step.\n`);
      await calls.stepComplete({ jobId: req.jobId, stepId: step.stepId, exitCode: 1, exitSignal: 0, state: "CANCELLED" }).catch(() => undefined);
      return { exitCode: 1, exitSignal: 0 };
    }
  }
  // --bcast: the tasks run the copy their node got
  let bcastPaths: ReadonlyMap<string, string> | undefined;
  if (req.bcast !== undefined) {
    const { broadcastExecutable } = await import("./srun-bcast.ts");
    const nodes = step.alloc.map((s, i) => ({ name: s.node, addr: created.nodes[i]?.addr ?? "", port: created.nodes[i]?.port ?? 0 }));
    const sent = await broadcastExecutable(req.bcast.source, req.bcast.dest, req.cwd, req.jobId, step.stepId, nodes);
    if (typeof sent === "string") {
      process.stderr.write(`srun: error: ${sent}\n`);
      await calls.stepComplete({ jobId: req.jobId, stepId: step.stepId, exitCode: 1, exitSignal: 0, state: "FAILED" }).catch(() => undefined);
      return { exitCode: 1, exitSignal: 0 };
    }
    bcastPaths = sent;
  }
  const shares = step.alloc;
  const tasksPerNode = shares.map((s) => s.tasks);
  const nodeNames = shares.map((s) => s.node);
  const ntasks = tasksPerNode.reduce((a, b) => a + b, 0);
  // a heterogeneous step's component: ranks, labels and the tasks' view are the whole step's
  const place = req.hetPlace;
  const rank = (localTask: number): number => localTask + (place?.taskOffset ?? 0);
  const stepNodeIndex = (node: string, nodeIndex: number): number => (place === undefined ? nodeIndex : Math.max(0, place.nodeNames.indexOf(node)));
  const width = String(Math.max(0, (place?.ntasks ?? ntasks) - 1)).length;
  const gpusPerTask = Number(/(\d+)$/.exec(req.spec.gpusPerTask)?.[1] ?? 0);
  // --ntasks-per-gpu=N implies --gpu-bind=single:N unless --gpu-bind is given.
  const gpuBind = req.spec.gpuBind || (req.spec.ntasksPerGpu > 0 ? `single:${req.spec.ntasksPerGpu}` : "");
  // -m's first level numbers the tasks over the nodes (block, cyclic, plane=N); the controller fixed the counts.
  const hostOrder = isArbitrary(req.spec.distribution) ? expandOrEmpty(req.spec.nodelist) : [];
  const ranks = hostOrder.length === ntasks ? arbitraryRanks(nodeNames, hostOrder) : taskRanks(tasksPerNode, req.spec.distribution);
  if ((req.verbose ?? 0) > 0) {
    const v = await import("../../compat/options/srun-verbose.ts");
    process.stderr.write(v.jobidLine(job.jobId, job.alloc) + v.launchingLines(job.jobId, step.stepId, shares.map((s, i) => ({ node: s.node, taskIds: ranks[i] ?? [] }))));
  }
  // --pty needs srun's stdout to be a terminal; without one the step runs as without --pty (Slurm's lines)
  const terminal = req.pty === true ? srunTerminal() : undefined;
  if (req.pty === true && terminal === undefined) process.stderr.write(PTY_REFUSED_LINES);
  // where each task's output goes (-o/-e) and its input comes from (-i): known before any task runs
  const targets = new Map<number, { out: StreamTarget; err: StreamTarget }>();
  const inputs = new Map<number, InputTarget>();
  const readers = new Set<string>(); // nodes with a task that reads srun's stdin
  shares.forEach((share, nodeIndex) => {
    for (let k = 0; k < share.tasks; k++) {
      const taskId = ranks[nodeIndex]?.[k] ?? 0;
      const ctx = {
        jobId: (place?.job ?? job).jobId, arrayJobId: job.arrayJobId, arrayTaskId: job.arrayTaskId, jobName: job.name, user: req.user,
        nodeName: share.node, nodeIndex: stepNodeIndex(share.node, nodeIndex), taskId: rank(taskId), stepId: step.stepId,
      };
      // --pty: only task 0 is connected, through its terminal (oracle: the other tasks' output is not shown)
      const others = terminal !== undefined && rank(taskId) !== 0;
      targets.set(rank(taskId), others ? { out: { kind: "discard" }, err: { kind: "discard" } } : taskTargets(req.spec.stdOut, req.spec.stdErr, ctx, req.cwd));
      const input = others ? { kind: "none" as const } : inputTarget(req.spec.stdIn, ctx, req.cwd, place?.ntasks ?? ntasks);
      inputs.set(taskId, input);
      if (input.kind === "forward") readers.add(share.node);
    }
  });
  // started in the background from a terminal: the tasks read end of input (tty-foreground.ts)
  const own: Readable = req.stdin ?? (readers.size === 0 || mayReadStdin() ? process.stdin : Readable.from([]));
  const source = inputSource(inputs, own);
  if (typeof source === "string") {
    await calls.stepComplete({ jobId: req.jobId, stepId: step.stepId, exitCode: 1, exitSignal: 0, state: "FAILED" }).catch(() => undefined);
    throw new Error(source);
  }
  // --pty: the end of srun's stdin is not the end of the task's terminal input (window changes go on)
  const feed = readers.size > 0 ? createStdinFeed(source, readers, undefined, terminal === undefined) : undefined;
  // --mpi=pmi2 and --mpi=pmix: every node's agent serves its tasks; the fences of all nodes meet at this srun
  const pmi = req.mpi === "pmi2" || req.mpi === "pmix";
  const launcher = await launcherFor(created.nodes[0], req.jobId, step.stepId, feed, pmi ? shares.length : 0);
  // a task's PMI abort cancels the step on every node (oracle: the step is CANCELLED, its tasks Killed)
  let stepKilled = false; // a PMI abort or -W's time ran out: srun said so already, no "Force Terminated"
  if (launcher !== undefined && pmi) {
    launcher.onPmiAbort = () => {
      if (stepKilled) return;
      stepKilled = true;
      process.stderr.write(`srun: Job step aborted: Waiting up to ${job.killWaitSec + 2} seconds for job step to finish.\n`);
      void calls.signalStep?.({ jobId: req.jobId, stepId: step.stepId, signal: 0 }).catch(() => undefined);
    };
  }
  const mapping = processMapping(nodeOfRanks(ranks));
  const mpiFields = pmi ? { mpiType: req.mpi, pmiProcessMapping: mapping, pmiNodes: shares.length } : {};
  const launcherAddr = launcher === undefined ? "" : `${launcher.host.includes(":") ? `[${launcher.host}]` : launcher.host}:${launcher.port}`;
  // --pty implies --unbuffered: keys echoed and prompts shown as they come
  const output = new TaskOutput(targets, req.label, req.spec.openMode === "append", width, req.unbuffered === true || terminal !== undefined);
  terminal?.start((size) => feed?.resize(size.rows, size.cols));
  let exitCode = 0;
  let exitSignal = 0;
  // -K: the first task that exits non-zero (or of a signal) terminates the others, as Slurm's srun does
  let terminating = false;
  // -K's trigger is reported at once, its own line first (oracle order), not with its node's
  // other tasks: another node's tasks, terminated because of it, may end before this node does
  const reportedEarly = new Set<number>();
  // -W: the first exit starts the clock for the others
  const states = new Map<number, TaskState>(ranks.flat().map((r) => [r, "running"]));
  let waitTimer: ReturnType<typeof setTimeout> | undefined;
  const onTaskEnd = (node: string, taskId: number, code: number, signal: number): void => {
    states.set(taskId, code === 0 && signal === 0 ? "exited" : "abnormal");
    if ((req.waitSec ?? 0) > 0 && waitTimer === undefined && [...states.values()].includes("running")) {
      waitTimer = setTimeout(() => {
        if (![...states.values()].includes("running") || abort.aborted) return;
        stepKilled = true;
        process.stderr.write(waitExpiredLines(req.waitSec ?? 0, `${req.jobId}.${step.stepId}`, states, job.killWaitSec).map((l) => `${l}\n`).join(""));
        void calls.signalStep?.({ jobId: req.jobId, stepId: step.stepId, signal: 9 }).catch(() => undefined);
      }, (req.waitSec ?? 0) * 1000);
    }
    if (req.killOnBadExit !== true || terminating || (code === 0 && signal === 0) || abort.aborted) return;
    terminating = true;
    reportedEarly.add(taskId);
    const end = { taskId, exitCode: code, exitSignal: signal, ...pick(launcher?.exits.get(taskId)) };
    process.stderr.write(`${taskEndLines(node, [end])}srun: launch/slurm: _step_signal: Terminating StepId=${req.jobId}.${step.stepId}\n`);
    void calls.signalStep?.({ jobId: req.jobId, stepId: step.stepId, signal: 15 }).catch(() => undefined);
  };
  const runs = shares.map(async (share, nodeIndex) => {
    const addr = created.nodes[nodeIndex];
    const here = ranks[nodeIndex] ?? [];
    const tasks = Array.from({ length: share.tasks }, (_, k) => {
      const taskId = here[k] ?? 0;
      const layout = place === undefined
        ? { stepId: step.stepId, nodelist: step.nodelist, ntasks, tasksPerNode, nodeNames }
        : { stepId: step.stepId, nodelist: place.nodelist, ntasks: place.ntasks, tasksPerNode: place.tasksPerNode, nodeNames: place.nodeNames };
      const env = buildStepTaskEnv(
        place?.job ?? job,
        layout,
        {
          taskId: rank(taskId), localId: k, nodeIndex: stepNodeIndex(share.node, nodeIndex), nodeName: share.node,
          gpuIndicesOnNode: taskGpus(share.gpuIndices, k, gpuBind, gpusPerTask), constrainDevices: false, gtids: here.map(rank),
        },
        req.baseEnv,
        {
          confPath: req.confPath, clusterName: req.clusterName, umask: req.umask, labelIo: req.label, cpusPerTask: req.spec.cpusPerTask,
          distribution: req.spec.distribution,
          ...(launcher === undefined ? {} : { launcher: { host: launcher.host, port: launcher.port } }),
        },
      );
      // -E/--preserve-env: the allocation's node and task counts stay as srun found them (oracle: NNODES=2 NTASKS=4 TPN=3,1)
      if (req.preserveEnv === true) for (const k of PRESERVED) if (req.baseEnv[k] !== undefined) env[k] = req.baseEnv[k];
      const input = inputs.get(taskId) ?? { kind: "none" };
      // without srun's message port there is nothing to pull stdin from: the task reads /dev/null
      const stdin = input.kind === "file" ? { stdinPath: input.path } : { stdinForwarded: input.kind === "forward" && launcher !== undefined };
      const pty = terminal !== undefined && rank(taskId) === 0 ? { pty: true, ptyRows: terminal.size.rows, ptyCols: terminal.size.cols } : {};
      if (terminal !== undefined) Object.assign(env, ptyEnv(terminal.size, launcher?.port));
      // --mpi=pmi2: the agent adds PMI_FD; rank, size and job id are known here (oracle: PMI_JOBID=J.S)
      if (req.mpi === "pmi2") Object.assign(env, { SLURM_MPI_TYPE: "pmi2", PMI_RANK: String(taskId), PMI_SIZE: String(ntasks), PMI_JOBID: `${req.jobId}.${step.stepId}` });
      // --mpi=pmix: the agent adds PMIx's own variables (oracle: SLURM_PMIX_MAPPING_SERV in the vector format)
      if (req.mpi === "pmix") Object.assign(env, { SLURM_MPI_TYPE: "pmix", SLURM_PMIX_MAPPING_SERV: mapping });
      const copied = bcastPaths?.get(share.node);
      const argv = req.taskArgv?.(taskId, share.node) ?? (copied === undefined ? [] : [copied, ...req.command.slice(1)]);
      return { taskId, env, ...stdin, ...pty, argv };
    });
    const agentUrl = rpcUrl(addr?.addr ?? "", addr?.port ?? 0);
    const client = createClient(Agent, createConnectTransport({ baseUrl: agentUrl, httpVersion: "1.1", interceptors: [credentialInterceptor(nodeAudience(share.node))], ...connectTls(agentUrl) }));
    const stream = client.runTasks(
      {
        jobId: req.jobId, stepId: step.stepId, argv: req.command, workDir: req.cwd, tasks, nodeIndex, uid: req.uid, gid: req.gid, user: req.user, alloc: share,
        launcher: launcherAddr, launcherToken: launcher?.token ?? "", ...(req.setup === undefined ? {} : { setup: req.setup }), ...mpiFields,
      },
      { signal: abort },
    );
    const ends: TaskEnd[] = [];
    for await (const frame of stream) {
      if (frame.stdout.length > 0) output.write(rank(frame.taskId), "out", frame.stdout);
      if (frame.stderr.length > 0) output.write(rank(frame.taskId), "err", frame.stderr);
      if (frame.exited) {
        output.ended(rank(frame.taskId));
        ends.push({ taskId: frame.taskId, exitCode: frame.exitCode, exitSignal: frame.exitSignal });
        onTaskEnd(share.node, frame.taskId, frame.exitCode, frame.exitSignal);
      }
    }
    // the exit status comes from the agent's report to srun's listener (the agent sends a task's
    // exit frame only once its report is in); the frame's copy stands in for a report that failed
    // a het step's exit lines name the component's own task ids (oracle: `srun CMD : -n1 false` says "task 0")
    const reported = ends.map((e) => ({ ...e, ...pick(launcher?.exits.get(e.taskId)) }));
    for (const e of reported) {
      exitCode = Math.max(exitCode, e.exitCode);
      if (e.exitSignal !== 0) exitSignal = e.exitSignal;
    }
    // --pty: the terminal is back in its own mode once task 0 is over, before srun's own lines
    if (here.map(rank).includes(0)) terminal?.restore();
    if (!abort.aborted) process.stderr.write(taskEndLines(share.node, reported.filter((e) => !reportedEarly.has(e.taskId))));
  });
  const results = await Promise.allSettled(runs.map((run, nodeIndex) => run.finally(() => feed?.drop(shares[nodeIndex]?.node ?? ""))));
  if (waitTimer !== undefined) clearTimeout(waitTimer);
  terminal?.restore();
  feed?.close();
  output.close();
  void launcher?.close();
  // a task killed by a signal ends the step: Slurm's step launcher says so once the tasks are done
  if (exitSignal !== 0 && !abort.aborted && !stepKilled) process.stderr.write(`srun: Force Terminated StepId=${req.jobId}.${step.stepId}\n`);
  const failed = results.find((r) => r.status === "rejected");
  const state = abort.aborted ? "CANCELLED" : failed ? "FAILED" : exitCode === 0 && exitSignal === 0 ? "COMPLETED" : "FAILED";
  await calls.stepComplete({ jobId: req.jobId, stepId: step.stepId, exitCode, exitSignal, state }).catch(() => undefined);
  if (req.srunScripts?.epilog !== undefined) await runSrunScript(req.srunScripts.epilog, req.command, scriptEnv("epilog_srun"));
  if (failed && !abort.aborted) throw (failed as PromiseRejectedResult).reason;
  return { exitCode, exitSignal };
}

/** SLURM_PTY_WIN_ROW/COL (and SLURM_PTY_PORT, srun's port that takes window changes: here its message port). */
function ptyEnv(size: { rows: number; cols: number }, port: number | undefined): Record<string, string> {
  const env: Record<string, string> = { SLURM_PTY_WIN_ROW: String(size.rows), SLURM_PTY_WIN_COL: String(size.cols) };
  if (port !== undefined) env.SLURM_PTY_PORT = String(port);
  return env;
}

/**
 * What srun forwards to the tasks that read its stdin: its own `stdin`, or the one `-i FILE` (no per-task
 * letter) that srun opens itself, as the user who runs srun; Slurm's error text when that cannot be opened.
 */
function inputSource(inputs: ReadonlyMap<number, InputTarget>, stdin: Readable): Readable | string {
  const fromFile = [...inputs.values()].find((i) => i.kind === "forward" && i.path !== undefined);
  if (fromFile?.kind !== "forward" || fromFile.path === undefined) return stdin;
  const path = fromFile.path;
  try {
    return createReadStream("", { fd: openSync(path, "r") });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return `Could not open stdin file: ${strerrorOf(e)}`;
  }
}
