/**
 * @module sched/model/state-job-spec
 * What a job asked for, as the replicated state keeps it (JobRecord.spec, the submit
 * command's payload). Hand-written, not the generated wire type: a .proto change does not
 * change this record; ctld/wire-map checks field by field that the two still agree and is
 * where a difference gets its conversion. Changing a field here changes the snapshot and the
 * meaning of logged commands: bump STATE_TYPES_VERSION (state-types.ts) with it.
 */

/** A generic resource request such as gpu:mi300x:2 (type may be empty). */
export interface GresRequestState {
  name: string;
  type: string;
  count: number;
  /** a count above uint32 (--gres=bandwidth:8G); count is then 0 */
  countWide?: number;
  /** no count given (--gres=gpu): one is asked for, and TresPerNode shows none (oracle 22.05: gres:gpu) */
  countOmitted?: boolean;
}

/** What sbatch/srun/salloc parsed (times in epoch seconds, 0 = not set). */
export interface JobSpecState {
  name: string;
  script: string;
  argv: string[];
  workDir: string;
  env: Record<string, string>;
  partition: string;
  account: string;
  qos: string;
  nodesMin: number;
  nodesMax: number;
  ntasks: number;
  ntasksPerNode: number;
  cpusPerTask: number;
  memPerNodeMib?: number;
  memPerCpuMib?: number;
  memPerGpuMib?: number;
  timeLimitMin?: number;
  timeMinMin?: number;
  gresPerNode: GresRequestState[];
  gpus: string;
  gpusPerNode: string;
  gpusPerTask: string;
  cpusPerGpu: number;
  exclusive: boolean;
  nodelist: string;
  exclude: string;
  constraint: string;
  dependency: string;
  beginTime: number;
  hold: boolean;
  array: string;
  stdOut: string;
  stdErr: string;
  stdIn: string;
  openMode: string;
  requeue: boolean;
  nice: number;
  comment: string;
  mailType: string;
  mailUser: string;
  signal: string;
  deadline: number;
  export: string;
  submitLine: string;
  submitHost: string;
  interactive: boolean;
  overcommit: boolean;
  killWaitSec: number;
  reservation: string;
  wckey: string;
  threadsPerCore: number;
  licenses: string;
  immediate: boolean;
  noRequeue: boolean;
  distribution: string;
  command: string;
  killOnInvalidDep: boolean;
  priority: number;
  umask: number;
  /** --switches=N: most leaf switches wanted (0 = any) */
  reqSwitch: number;
  /** --switches=N@time: how long to wait for them */
  wait4switchSec: number;
  /** --gpu-bind as typed, minus "verbose," (none, per_task:N, single:N, map_gpu:..., mask_gpu:..., closest) */
  gpuBind: string;
  /** --ntasks-per-gpu: tasks per GPU (derives the task or GPU count) */
  ntasksPerGpu: number;
  /** --gpus-per-socket=[type:]N: N GPUs on every allocated socket */
  gpusPerSocket?: string;
  /** --sockets-per-node: allocated sockets per node (0 = any) */
  socketsPerNode?: number;
  /** --gres-flags: enforce-binding, disable-binding, ... */
  gresFlags?: string;
  /** --hint: nomultithread, multithread, compute_bound, memory_bound */
  hint?: string;
  /** --ntasks-per-socket: most tasks on one socket (0 = any) */
  ntasksPerSocket?: number;
  /** --cores-per-socket: cores used on each allocated socket (0 = any) */
  coresPerSocket?: number;
  /** (numbered from 90 so that fields added on other branches meanwhile do not collide) -s/--oversubscribe: the job may share its nodes' CPUs (where the partition allows it) */
  oversubscribe?: boolean;
  /** --contiguous: the nodes must be consecutive */
  contiguous?: boolean;
  /** --mincpus: at least this many CPUs on each node */
  mincpus?: number;
  /** --tmp: at least this much TmpDisk on each node (MiB) */
  tmpMib?: number;
  /** --container as given ("" given empty: no container, scontrol Container=) */
  container?: string;
  /** --ntasks-per-core: most tasks on one core (0 = any) */
  ntasksPerCore?: number;
  /** -k/--no-kill: a failed node other than the batch host leaves the job running on the rest */
  noKill?: boolean;
  /** --spread-job: the job's tasks over as many nodes as it may have */
  spreadJob?: boolean;
  /** --cpu-freq as sbatch exports it in SLURM_CPU_FREQ_REQ ("Low-High:Performance") */
  cpuFreq?: string;
  /** --gpu-freq as Slurm records it ("gpu:high", scontrol TresFreq=) */
  tresFreq?: string;
  /** --network as given (scontrol Network=) */
  network?: string;
  /** --use-min-nodes: a node range takes its minimum when that holds the job */
  useMinNodes?: boolean;
  /** --delay-boot (scontrol DelayBoot=); Spur never reboots nodes for features */
  delayBootSec?: number;
  /** Options given with an empty value, comma-separated names (Slurm keeps "" apart from unset) */
  givenEmpty?: string;
  /** --acctg-freq as given: the controller checks its task interval against JobAcctGatherFrequency */
  acctgFreq?: string;
  /** (numbered from 610 so that fields added on other branches meanwhile do not collide) --exclusive=user: share nodes only with the same user's jobs (OverSubscribe=USER) */
  exclusiveUser?: boolean;
  /** --prefer: node features wanted but not required (tried first, then dropped) */
  prefer?: string;
  /** --kill-on-invalid-dep=no (scontrol KillOInInvalidDependent=No) */
  noKillOnInvalidDep?: boolean;
  /** --bb as given: kept and shown (scontrol BurstBuffer=, squeue BurstBuffer); no burst buffer plugin acts on it */
  burstBuffer?: string;
}
