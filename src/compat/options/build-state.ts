/**
 * @module compat/options/build-state
 * What folding the option assignments produces: the job request (Plain<JobSpec>), the
 * command's own settings (sbatch --parsable, srun -l, salloc --no-shell ...) and warnings.
 * Every field starts at its "not given" value so the controller applies its defaults.
 */
import type { JobSpec } from "../../net/gen/spur/v1/types_pb.ts";
import type { Plain } from "../../lib/plain.ts";
import type { Source } from "./env-input.ts";
import type { Command } from "./table.ts";

/** Behaviour of the command itself (not sent to the controller). */
export interface CmdSettings {
  parsable: boolean;
  quiet: boolean;
  verbose: number;
  testOnly: boolean;
  /** sbatch -W/--wait. */
  wait: boolean;
  /** srun -W/--wait=<seconds>. */
  waitSec?: number;
  wrap?: string;
  /** -M/--clusters as given. */
  clusters?: string;
  ignorePbs: boolean;
  /** SLURM_EXIT_ERROR / SLURM_EXIT_IMMEDIATE. */
  exitError?: number;
  exitImmediate?: number;
  /** srun/salloc -I/--immediate[=<seconds>]. */
  immediateSec?: number;
  // srun
  label: boolean;
  pty: boolean;
  ptyFd?: number;
  unbuffered: boolean;
  /** --jobid or SLURM_JOB_ID: run the step inside this allocation. */
  jobId?: number;
  /** srun --het-group=N: run the step in component N of the heterogeneous allocation. */
  hetGroup?: number;
  /** SLURM_JOB_NODELIST of the allocation srun runs inside. */
  allocNodelist?: string;
  multiProg: boolean;
  killOnBadExit?: number;
  disableStatus: boolean;
  exact: boolean;
  overlap: boolean;
  /** srun --interactive: salloc's interactive step (one task on the allocation's first node, LaunchParameters=use_interactive_step). */
  interactive: boolean;
  whole: boolean;
  preserveEnv: boolean;
  quitOnInterrupt: boolean;
  mpi?: string;
  /** --cpu-bind as given; spurd binds the step's tasks (SLURM_CPU_BIND in their environment). */
  cpuBind?: string;
  /** --task-prolog/--task-epilog: run around every task by the agent (agent/task-setup.ts). */
  taskProlog?: string;
  taskEpilog?: string;
  /** srun --prolog/--epilog (or SLURM_PROLOG/SLURM_EPILOG): programs srun runs itself around the step; "none" turns SrunProlog/SrunEpilog off. */
  srunProlog?: string;
  srunEpilog?: string;
  /** srun --bcast[=DEST] (or SLURM_BCAST): the executable is copied to the step's nodes first ("" = srun's default path). */
  bcast?: string;
  /** srun -r/--relative=N: the step starts at node N of the allocation. */
  relative?: number;
  // salloc
  /** --bell (true) / --no-bell (false); undefined = Slurm's "after a delay". */
  bell?: boolean;
  noShell: boolean;
  /** -K/--kill-command[=signal]: signal number sent to the command when the allocation ends. */
  killCommandSignal?: number;
}

export interface BuildState {
  cmd: Command;
  spec: Plain<JobSpec>;
  settings: CmdSettings;
  warnings: string[];
  /** --export as given (the environment is computed at the end). */
  exportValue?: string;
  /** --chdir made absolute. */
  chdir?: string;
  /** Which of --mem / --mem-per-cpu / --mem-per-gpu were set, from where (in order). */
  memBy: { name: string; source: Source }[];
  now: number;
  cwd: string;
  /** SLURM_UMASK was given (else the submitter's umask is recorded). */
  umaskSet?: boolean;
  /** -p/--partition was given (an empty one is refused: Slurm's "invalid partition specified: (null)"). */
  partitionGiven?: boolean;
  /** -J/--job-name was given (sbatch keeps an empty one: Slurm's JobName= is then empty). */
  nameGiven?: boolean;
  /** --hint as given: judged once every option is read (settleHint). */
  hintGiven?: string;
  /** --get-user-env: the node loads the user's login environment under the job's (SLURM_GET_USER_ENV=1). */
  getUserEnv?: boolean;
  /** -B/--extra-node-info: the tasks per node it asks for when no task count is given (apply-node-info.ts). */
  extraNodeTasks?: number;
  /** Variables Slurm's commands export for an option (SLURM_PROFILE, SLURM_MEM_BIND, ...: apply-tuning.ts), added to the job's environment at the end. */
  optionEnv?: Record<string, string>;
  /** Container options (compat/container-request), added to the job's environment at the end. */
  containerEnv?: Record<string, string>;
}

export function emptySpec(): Plain<JobSpec> {
  return {
    name: "", script: "", argv: [], workDir: "", env: {}, partition: "", account: "", qos: "",
    nodesMin: 0, nodesMax: 0, ntasks: 0, ntasksPerNode: 0, cpusPerTask: 0,
    memPerNodeMib: undefined, memPerCpuMib: undefined, memPerGpuMib: undefined,
    timeLimitMin: undefined, timeMinMin: undefined, gresPerNode: [], gpus: "", gpusPerNode: "",
    gpusPerTask: "", cpusPerGpu: 0, reqSwitch: 0, wait4switchSec: 0, gpuBind: "", ntasksPerGpu: 0, exclusive: false, nodelist: "", exclude: "", constraint: "",
    dependency: "", beginTime: 0, hold: false, array: "", stdOut: "", stdErr: "", stdIn: "",
    openMode: "", requeue: false, nice: 0, comment: "", mailType: "", mailUser: "", signal: "",
    deadline: 0, export: "", submitLine: "", submitHost: "", interactive: false, overcommit: false,
    killWaitSec: 0, reservation: "", wckey: "", threadsPerCore: 0, licenses: "", immediate: false,
    noRequeue: false, distribution: "", command: "", killOnInvalidDep: false, priority: 0, umask: 0,
  };
}

export function emptySettings(): CmdSettings {
  return {
    parsable: false, quiet: false, verbose: 0, testOnly: false, wait: false, ignorePbs: false,
    label: false, pty: false, unbuffered: false, multiProg: false, disableStatus: false, exact: false,
    overlap: false, interactive: false, whole: false, preserveEnv: false, quitOnInterrupt: false, noShell: false,
  };
}

/** Join a path onto a directory and normalise "." and ".." (POSIX, pure). */
export function absolutePath(cwd: string, path: string): string {
  const joined = path.startsWith("/") ? path : `${cwd}/${path}`;
  const out: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `/${out.join("/")}`;
}
