/**
 * @module agent/tasks
 * Runs the tasks of one srun step on this node and streams their output and
 * exits back to srun. Tasks run as the job's user in their own process group;
 * if srun goes away (the stream is aborted) or the job is terminated, every task
 * of the step is killed. When the node contains jobs, the tasks join the step's
 * cgroup before they exec, and the step's end kills whatever they left behind.
 * `srun --pty`: task 0 runs on a pseudo-terminal (pty.ts) whose output is its
 * stdout; its exit is reported once that terminal is read to the end.
 */
import { localizeVisibleDevices } from "../compat/visible-devices.ts";
import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import type { RunTasksRequest } from "../net/gen/spur/v1/agent_pb.ts";
import { RecordingQueue } from "./step-attach.ts";
import { PMI_FD_NUMBER, spawnAsUser } from "./run-as.ts";
import { servePmi } from "./pmi-serve.ts";
import { servePmix } from "./pmix-serve.ts";
import { isoTimeText } from "../compat/format/time-memo.ts";
import type { Duplex } from "node:stream";
import { rootEnv, umaskOf, type UserLaunch } from "./user-launch.ts";
import type { StepContainment } from "./containment.ts";
import { withTaskSetup } from "./task-setup.ts";
import { taskWrapCommand } from "./prolog.ts";
import { joinCommand, killTree, removeTrees } from "./cgroup/fs.ts";
import { formatCpuList } from "../lib/cpu-list.ts";
import { bindTasks, bindVerboseLine, parseCpuBind, type BindResult } from "./cgroup/bind.ts";
import { exitReporter } from "./launcher-report.ts";
import { feedTaskInput } from "./task-input.ts";
import { openStdinPipe, streamStdin, type TaskStdin } from "./stdin-pipe.ts";
import { openPty, withTerminal } from "./pty.ts";
import { emptySampler, nodeUsage, readCounters, sample, type Sampler, type Usage } from "./cgroup/usage.ts";
import { commandInRootfs, runtimeExit, taskCommand, type ContainerLaunch } from "./container/launch.ts";
import type { Rootfs } from "./container/rootfs.ts";

export interface Frame {
  taskId: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  exited: boolean;
  exitCode: number;
  exitSignal: number;
}

/** Process groups of running steps, per job, so a job's end kills its steps. */
export const stepGroups = new Map<number, Set<number>>();

/** Running contained steps on this node ("job.step" → cgroup and samples), for sstat. */
export const runningSteps = new Map<string, { jobId: number; stepId: number; contained: StepContainment; sampler: Sampler; ntasks: number }>();

const EMPTY = new Uint8Array(0);

/**
 * How long a --pty task's terminal is read after the task exited: its output is read by then; a
 * process it left behind that still holds the terminal is then hung up (the master is closed).
 */
const PTY_DRAIN_MS = 1000;

/** errno values (Linux) of the usual exec failures: Slurm's stepd exits with the errno. */
const EXEC_ERRNO: Record<string, number> = { ENOENT: 2, EACCES: 13, ENOEXEC: 8, ENOTDIR: 20 };
const EXEC_TEXT: Record<string, string> = {
  ENOENT: "No such file or directory", EACCES: "Permission denied", ENOEXEC: "Exec format error", ENOTDIR: "Not a directory",
};

/** Slurm's stepd wording for a command that cannot be executed (conformance x-err-srun-command-not-found). */
function execFailure(node: string, cmd: string, code: string, message: string): string {
  return `slurmstepd-${node}: error: execve(): ${cmd}: ${EXEC_TEXT[code] ?? message}\n`;
}

/**
 * srun -i <file>: the command with its stdin from `path`, opened by a shell that already runs as
 * the job's user (so the user reads only what the user may read) and then exec'd away.
 */
function withStdin(path: string, argv: readonly string[]): string[] {
  return ["/bin/sh", "-c", 'exec <"$1" || exit 1; shift; exec "$@"', "spur_stdin", path, ...argv];
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals | number): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

/** The image's own PATH (its config's Env), which wins over the job's inside the container. */
const imagePath = (env: readonly string[]): string | undefined => env.find((l) => l.startsWith("PATH="))?.slice(5);

/** The running tasks of srun steps here by pid (scontrol listpids): job, step, local and global task id, owner. */
export const taskPids = new Map<number, { jobId: number; stepId: number; localId: number; globalId: number; uid: number }>();

/** The step each task's process group belongs to (scancel J.S signals one step only). */
const stepOfGroup = new Map<number, number>();

/** Signal the job's step tasks here: all of them, or those of `stepId` only (>= 0). */
export function killJobSteps(jobId: number, signal: NodeJS.Signals | number = "SIGKILL", stepId = -1): void {
  for (const pid of stepGroups.get(jobId) ?? []) {
    if (stepId < 0 || stepOfGroup.get(pid) === stepId) killGroup(pid, signal);
  }
}

export interface StepHooks {
  contained: StepContainment | undefined;
  /** The step's usage on this node, once its tasks have ended (contained steps only). */
  ended(usage: Usage | undefined): void;
  sampleSec: number;
  node: string;
  taskProlog: string;
  taskEpilog: string;
  /** What setting up the step's cgroup said ("" = ready); see setUpCgroup. */
  setupProblem: string;
  /** Unique id per GPU index of this node (MIG UUIDs; "" = named by index). */
  gpuUniqueIds?: string[];
  /** The step runs in this container (--container-image / --container), its root file system ready. */
  container?: { launch: ContainerLaunch; rootfs: Rootfs };
  /** Why the step's container could not start: the tasks' stderr, as is ("" = no problem). */
  containerError?: string;
  /** The command line that runs this program again: `srun --mpi=pmix` starts `spur pmix-server` with it. */
  selfExec?: readonly string[];
}

export function runTasks(req: RunTasksRequest, abort: AbortSignal, hooks?: StepHooks): AsyncIterable<Frame> {
  // every frame also goes to the step's log on this node, for sattach (step-attach.ts)
  const queue = new RecordingQueue<Frame>(`${req.jobId}.${req.stepId}`);
  const children: ChildProcess[] = [];
  let running = req.tasks.length;
  const groups = stepGroups.get(req.jobId) ?? new Set<number>();
  stepGroups.set(req.jobId, groups);
  const frame = (taskId: number, part: Partial<Frame>): Frame => ({
    taskId, stdout: EMPTY, stderr: EMPTY, exited: false, exitCode: 0, exitSignal: 0, ...part,
  });
  // A task's end is reported to srun's listener first, then put on the stream after its output:
  // when srun reads the exit frame, the report (srun's record of the exit) is already in.
  const report = exitReporter(req, hooks?.node || (req.tasks[0]?.env.SLURMD_NODENAME ?? ""));
  const exitsSent: Promise<void>[] = [];
  const pushExit = (taskId: number, part: Partial<Frame>): void => {
    const f = frame(taskId, { ...part, exited: true });
    exitsSent.push(report(taskId, f.exitCode, f.exitSignal).then(() => queue.push(f)));
  };
  /** End the stream once every exit frame is on it. */
  const closeQueue = (): void => {
    void Promise.all(exitsSent).then(() => queue.close());
  };
  const problem = hooks?.setupProblem ?? "";
  // A step whose cgroup cannot be made does not run uncontained: every task fails with the reason.
  const cg = problem === "" ? hooks?.contained : undefined;
  const failure = problem !== "" ? `spurd: error: ${problem}\n` : (hooks?.containerError ?? "");
  if (failure !== "") {
    for (const task of req.tasks) {
      queue.push(frame(task.taskId, { stderr: new TextEncoder().encode(failure) }));
      pushExit(task.taskId, { exitCode: 1, exitSignal: 0 });
    }
    closeQueue();
    return queue;
  }
  const key = `${req.jobId}.${req.stepId}`;
  const sampler = emptySampler();
  let sampling: ReturnType<typeof setInterval> | undefined;
  if (cg !== undefined) {
    runningSteps.set(key, { jobId: req.jobId, stepId: req.stepId, contained: cg, sampler, ntasks: req.tasks.length });
    sampling = setInterval(() => sample(sampler, cg.plan.stepTrackDir), Math.max(1, hooks?.sampleSec ?? 2) * 1000);
    sampling.unref();
  }
  const binding = cg === undefined ? undefined : taskBinding(req, cg);
  if (typeof binding === "string") {
    for (const task of req.tasks) {
      queue.push(frame(task.taskId, { stderr: new TextEncoder().encode(`srun: error: ${binding}\n`) }));
      pushExit(task.taskId, { exitCode: 1, exitSignal: 0 });
    }
    closeQueue();
    return queue;
  }
  let alive = req.tasks.length;
  let stepEnded: Promise<void> = Promise.resolve();
  const stdins: TaskStdin[] = []; // tasks fed from srun's stdin (task-input.ts)
  // srun --mpi=pmi2: a PMI server for the step's tasks here (pmi-serve.ts); not inside containers
  const pmiNode = hooks?.node || (req.tasks[0]?.env.SLURMD_NODENAME ?? "");
  const abortStep = (rank: number): void => {
    // oracle: the node where a task called PMI abort reports its step cancelled, as for scancel
    const line = `slurmstepd-${pmiNode}: error: *** STEP ${req.jobId}.${req.stepId} ON ${pmiNode} CANCELLED AT ${isoTimeText(Date.now() / 1000)} ***\n`;
    queue.push(frame(rank, { stderr: new TextEncoder().encode(line) }));
    children.forEach((c) => killGroup(c.pid, "SIGKILL"));
  };
  const pmi = hooks?.container === undefined ? servePmi(req, pmiNode, abortStep) : undefined;
  // not silently: without PMI_FD each rank of an MPI program would start alone (a singleton)
  if (hooks?.container !== undefined && (req.mpiType === "pmi2" || req.mpiType === "pmix") && req.tasks[0] !== undefined) {
    const what = req.mpiType === "pmi2" ? "the tasks get no PMI_FD" : "the tasks get no PMIx server";
    queue.push(frame(req.tasks[0].taskId, { stderr: new TextEncoder().encode(`spurd: warning: --mpi=${req.mpiType} is not served inside containers: ${what}\n`) }));
  }
  // srun --mpi=pmix: the step's PMIx server here (pmix-serve.ts) gives each task its environment first
  const pmix = hooks?.container === undefined && hooks?.selfExec !== undefined
    ? servePmix(req, pmiNode, {
      selfExec: hooks.selfExec,
      prefix: (a) => (cg === undefined ? a : joinCommand(cg.plan.procs, a)),
      onAbort: (rank) => abortStep(rank),
      onStderr: (text) => queue.push(frame(req.tasks[0]?.taskId ?? 0, { stderr: new TextEncoder().encode(text) })),
    })
    : undefined;
  const launchAll = (pmixEnvs: Readonly<Record<string, Record<string, string>>>): void => {
    for (const [localId, task] of req.tasks.entries()) {
      const node = task.env.SLURMD_NODENAME ?? "";
      const box = hooks?.container;
      // --multi-prog: each task has its own command line
      const command = task.argv.length > 0 ? task.argv : req.argv;
      // In a container the command is the image's: the runtime reports a missing one.
      // Outside a container the user's shell looks for the command (as the user: root would see paths they cannot).
      const found = box === undefined
        ? (command[0] ?? "") !== ""
        : commandInRootfs(box.rootfs.path, command[0] ?? "", imagePath(box.rootfs.env) ?? task.env.PATH ?? "", req.workDir || "/");
      if (!found) {
        // the shell that sets SLURM_TASK_PID would say "not found" in its own words: answer as Slurm's stepd
        queue.push(frame(task.taskId, { stderr: new TextEncoder().encode(execFailure(node, command[0] ?? "", "ENOENT", "")) }));
        pushExit(task.taskId, { exitCode: EXEC_ERRNO.ENOENT });
        running -= 1;
        alive -= 1;
        continue;
      }
      const argv = task.stdinPath ? withStdin(task.stdinPath, command) : command;
      // srun --pty: task 0 on a terminal of its own (pty.ts); none can be opened: pipes, as without --pty
      const pty = task.pty && box === undefined ? openPty(req.uid, { rows: task.ptyRows, cols: task.ptyCols }) : undefined;
      // srun's stdin: a real pipe (stdin-pipe.ts), else the socket pair of stdio "pipe"
      const forwarded = task.stdinForwarded && !task.stdinPath;
      const pipe = forwarded && pty === undefined ? openStdinPipe() : undefined;
      const stdin = pty?.slaveFd ?? pipe?.readFd ?? (forwarded ? "pipe" : "ignore");
      const stdio: Array<"pipe" | "ignore" | number> = pty === undefined ? [stdin, "pipe", "pipe"] : [pty.slaveFd, pty.slaveFd, pty.slaveFd];
      const base = binding === undefined ? { ...task.env } : { ...task.env, ...binding.env };
      if (pmi !== undefined) base.PMI_FD = String(PMI_FD_NUMBER);
      Object.assign(base, pmixEnvs[String(task.taskId)] ?? {});
      // In a container only the step's GPUs exist: they count from 0 there too.
      const env = localizeVisibleDevices(base, { uniqueIds: hooks?.gpuUniqueIds ?? [], constrain: cg?.constrainDevices === true || box !== undefined });
      const bound = binding?.perTask[localId];
      // Root's part (cgroup join, taskset, setpriv or the OCI runtime) runs with the fixed environment;
      // the task's own is applied by the user's shell (user-launch.ts), or is in the container's config.
      const prefix = (a: string[]): string[] => {
        const pinned = bound === undefined ? a : ["/usr/bin/taskset", "-c", formatCpuList(bound), ...a];
        return cg === undefined ? pinned : joinCommand(cg.plan.procs, pinned);
      };
      let child: ChildProcess;
      if (box === undefined) {
        const l: UserLaunch = { uid: req.uid, gid: req.gid, workDir: req.workDir || "/", node, umask: umaskOf(env), env, checkCommand: command[0] ?? "" };
        const wrapped = taskWrapCommand(hooks?.taskProlog ?? "", hooks?.taskEpilog ?? "", withTaskSetup(req.setup, argv));
        child = spawnAsUser(l, pty === undefined ? wrapped : withTerminal(pty.path, wrapped), stdio, prefix, pmi !== undefined).child;
        const pmiEnd = (child.stdio as unknown as ReadonlyArray<Duplex | null | undefined>)[PMI_FD_NUMBER];
        if (pmi !== undefined && pmiEnd) pmi.attach(task.taskId, pmiEnd);
      } else {
        const [cmd, ...args] = prefix(taskCommand(box.launch, box.rootfs, { index: localId, args: command, env, uid: req.uid, gid: req.gid }));
        child = spawn(cmd ?? "true", args, { cwd: "/", env: rootEnv(), stdio: [stdin, "pipe", "pipe"], detached: true });
      }
      children.push(child);
      pipe?.closeReadEnd();
      pty?.closeSlave(); // the master reads as ended once the task and its children have closed theirs
      const taskStdin = pty?.input ?? pipe ?? (child.stdin === null ? undefined : streamStdin(child.stdin));
      if (taskStdin !== undefined) {
        stdins.push(taskStdin);
        queue.addInput(task.taskId, taskStdin); // sattach's stdin too
        child.once("exit", () => taskStdin.end()); // a process it left behind must not keep the feed going
      }
      if (child.pid !== undefined) {
        groups.add(child.pid);
        stepOfGroup.set(child.pid, req.stepId);
        taskPids.set(child.pid, { jobId: req.jobId, stepId: req.stepId, localId, globalId: task.taskId, uid: req.uid });
      }
      // Each task is its own process group: samples attribute its processes to its rank.
      if (child.pid !== undefined) (sampler.leaders ??= {})[String(child.pid)] = task.taskId;
      if (binding?.verbose && bound !== undefined) {
        queue.push(frame(task.taskId, { stderr: new TextEncoder().encode(bindVerboseLine(hooks?.node ?? "", task.taskId, localId, child.pid ?? 0, bound)) }));
      }
      child.stdout?.on("data", (b: Buffer) => queue.push(frame(task.taskId, { stdout: new Uint8Array(b) })));
      child.stderr?.on("data", (b: Buffer) => queue.push(frame(task.taskId, { stderr: new Uint8Array(b) })));
      // the terminal's output is the task's stdout; all of it is sent before the task's exit
      const drained = pty?.read((b) => queue.push(frame(task.taskId, { stdout: b }))) ?? Promise.resolve();
      if (pty !== undefined) child.once("exit", () => setTimeout(() => pty.close(), PTY_DRAIN_MS).unref());
      let done = false;
      let exited = false;
      // "exit": the task's process ended. When the last one has, the step's cgroup is emptied,
      // which also closes the output pipes that a left-behind daemon may still hold open.
      const onExit = () => {
        if (exited) return;
        exited = true;
        alive -= 1;
        if (alive === 0) stepEnded = endStep();
      };
      // "close": its output is drained too; the last task's exit frame waits for the step's end,
      // so that srun hears of it only when nothing of the step is left and its usage is known.
      const finish = (exitCode: number, exitSignal: number, message = "") => {
        if (done) return;
        done = true;
        onExit();
        if (child.pid !== undefined) {
          groups.delete(child.pid);
          stepOfGroup.delete(child.pid);
          taskPids.delete(child.pid);
        }
        if (message) queue.push(frame(task.taskId, { stderr: new TextEncoder().encode(message) }));
        running -= 1;
        if (running > 0) {
          pushExit(task.taskId, { exitCode, exitSignal });
          return;
        }
        void stepEnded.finally(() => {
          pushExit(task.taskId, { exitCode, exitSignal });
          closeQueue();
        });
      };
      child.once("exit", onExit);
      if (pty !== undefined) child.once("error", () => pty.close());
      child.once("error", (e: NodeJS.ErrnoException) => finish(EXEC_ERRNO[e.code ?? ""] ?? 2, 0, execFailure(node, command[0] ?? "", e.code ?? "", e.message)));
      child.once("close", (code, signal) => {
        const end = { exitCode: code ?? 0, exitSignal: signal ? (constants.signals[signal] ?? 0) : 0 };
        const seen = box === undefined ? end : runtimeExit(end.exitCode, end.exitSignal);
        void drained.then(() => {
          pty?.close();
          finish(seen.exitCode, seen.exitSignal);
        });
      });
    }
    if (running === 0) void endStep().finally(closeQueue);
    if (stdins.length > 0) void feedTaskInput(req, req.tasks[0]?.env.SLURMD_NODENAME ?? hooks?.node ?? "", stdins, abort);
  };
  async function endStep(): Promise<void> {
    if (sampling !== undefined) clearInterval(sampling);
    await pmix?.close(); // before the cgroup is emptied: the server cleans up after itself
    runningSteps.delete(key);
    if (cg === undefined) {
      hooks?.ended(undefined);
      return;
    }
    await killTree(cg.plan.stepKill, cg.plan.stepTrackDir);
    const usage = nodeUsage(readCounters(cg.plan.stats), sampler, hooks?.node ?? "", req.tasks.length);
    removeTrees(cg.plan.stepDirs);
    hooks?.ended(usage);
  }
  if (pmix === undefined) launchAll({});
  else {
    void pmix.ready.then((r) => {
      if (!abort.aborted && "envs" in r) return launchAll(r.envs);
      // no task starts: each fails with the reason (oracle: slurmstepd's mpi/pmix error, then srun's launch failure)
      const why = "error" in r ? `slurmstepd-${pmiNode}: error: mpi/pmix: ERROR: ${r.error}\n` : "";
      for (const task of req.tasks) {
        if (why !== "") queue.push(frame(task.taskId, { stderr: new TextEncoder().encode(why) }));
        pushExit(task.taskId, { exitCode: 1, exitSignal: 0 });
      }
      void endStep().finally(closeQueue);
    });
  }
  const limit = req.timeLimitSec > 0 ? setTimeout(() => children.forEach((c) => killGroup(c.pid, "SIGKILL")), req.timeLimitSec * 1000) : undefined;
  abort.addEventListener("abort", () => children.forEach((c) => killGroup(c.pid, "SIGKILL")));
  return {
    async *[Symbol.asyncIterator]() {
      try {
        yield* queue;
      } finally {
        pmi?.close();
        void pmix?.close();
        if (limit) clearTimeout(limit);
        children.forEach((c) => killGroup(c.pid, "SIGKILL"));
      }
    },
  };
}

/** The step's task binding on this node from its tasks' environment (srun puts --cpu-bind, -c, --hint there). */
/**
 * Per-task CPU binding when the user asked for it (`srun --cpu-bind`, which srun passes as
 * SLURM_CPU_BIND). Without it tasks share the job's cpuset and get no SLURM_CPU_BIND*
 * variables: what Slurm does without task/affinity (the conformance oracle's task/none).
 */
function taskBinding(req: RunTasksRequest, cg: StepContainment): BindResult | string | undefined {
  const env = req.tasks[0]?.env ?? {};
  if ((env.SLURM_CPU_BIND ?? "") === "") return undefined;
  const parsed = parseCpuBind(env.SLURM_CPU_BIND ?? "");
  if (!parsed.ok) return parsed.message;
  const hint = (env.SLURM_HINT ?? "").toLowerCase();
  return bindTasks({
    spec: parsed.spec, jobCpus: cg.hostCpus, cores: cg.cores, localTasks: req.tasks.length,
    cpusPerTask: Number(env.SLURM_CPUS_PER_TASK ?? 1) || 1,
    oneThreadPerCore: hint === "nomultithread" || hint === "compute_bound" || env.SLURM_THREADS_PER_CORE === "1",
    cyclic: /^[^:]*:cyclic|^[^:]*:fcyclic/.test(env.SLURM_DISTRIBUTION ?? ""),
    sockets: cg.sockets,
    // -m's second level; Slurm's default is block:cyclic.
    socketDist: /^[^:]*:block/.test(env.SLURM_DISTRIBUTION ?? "") ? "block" : "cyclic",
  });
}
