/**
 * @module sched/model/state-job-info
 * A job as the replicated state keeps it (JobRecord.info), with its steps, per-node
 * allocations and measured usage. Hand-written, not the generated wire types: a .proto
 * change does not change these records; ctld/wire-map checks field by field that state and
 * wire still agree and is where a difference gets its conversion. Changing a field here
 * changes the snapshot and the meaning of logged commands: bump STATE_TYPES_VERSION
 * (state-types.ts) with it. Times are epoch seconds, 0 = not set.
 */

/** A job as squeue, scontrol and sacct see it; the fields only the controller needs are on JobRecord (types.ts). */
export interface JobInfoState {
  jobId: number;
  arrayJobId: number;
  /** -1 when not an array element */
  arrayTaskId: number;
  /** pending remainder of an array, e.g. "4-10%2" */
  arrayTaskStr: string;
  arrayMaxTasks: number;
  name: string;
  uid: number;
  user: string;
  gid: number;
  group: string;
  account: string;
  partition: string;
  qos: string;
  /** base state: PENDING RUNNING ... (flags below) */
  state: string;
  /** COMPLETING, REQUEUED, ... */
  stateFlags: string[];
  /** pending/failure reason: None Priority Resources ... */
  reason: string;
  priority: number;
  nice: number;
  submitTime: number;
  eligibleTime: number;
  startTime: number;
  endTime: number;
  suspendTime: number;
  /** absent = UNLIMITED */
  timeLimitMin?: number;
  numNodes: number;
  numCpus: number;
  numTasks: number;
  cpusPerTask: number;
  ntasksPerNode: number;
  memPerNodeMib: number;
  memPerCpuMib: number;
  reqNodelist: string;
  excNodelist: string;
  nodelist: string;
  schedNodelist: string;
  batchHost: string;
  alloc: NodeAllocState[];
  /** cpu=1,mem=256M,node=1,billing=1 */
  tresReq: string;
  tresAlloc: string;
  /** gres/gpu:mi300x:2 */
  tresPerNode: string;
  tresPerJob: string;
  workDir: string;
  /** already expanded */
  stdOut: string;
  stdErr: string;
  stdIn: string;
  command: string;
  exitCode: number;
  exitSignal: number;
  derivedExitCode: number;
  dependency: string;
  features: string;
  comment: string;
  exclusive: boolean;
  requeue: boolean;
  restarts: number;
  batchFlag: boolean;
  submitLine: string;
  submitHost: string;
  allocSid: number;
  steps: StepInfoState[];
  lastSchedEval: number;
  reservation: string;
  wckey: string;
  deadline: number;
  preSusTime: number;
  cancelledBy: string;
  heldByAdmin: boolean;
  killWaitSec: number;
  signal: string;
  /** cpu=4,gres/gpu=1 (-c, --gpus-per-task, --tres-per-task) */
  tresPerTask?: string;
  /** --gpus-per-socket as asked: gres/gpu[:type][:N] (scontrol TresPerSocket=, squeue TRES_PER_SOCKET) */
  tresPerSocket?: string;
  /** --switches count */
  reqSwitch?: number;
  /** --switches wait */
  wait4switchSec?: number;
  /** the job asked to share (squeue %h YES) */
  oversubscribe?: boolean;
  /** squeue %O, scontrol Contiguous= */
  contiguous?: boolean;
  /** --mincpus (scontrol MinCPUsNode) */
  minCpusNode?: number;
  /** the submitting client's address as the controller resolves it (scontrol AllocNode) */
  allocNode?: string;
  /** (numbered from 120 so that fields added on other branches meanwhile do not collide) -L as the controller validated it: "a:2,b:1" (all) or "a:1|b:1" (any one); scontrol Licenses=, squeue %W */
  licenses?: string;
  /** the licenses the running job holds ("a:1"): squeue LicensesAlloc, TRES license/NAME */
  licensesAlloc?: string;
  /** -N's maximum: a pending job shows NumNodes=min-max (absent: -N not given) */
  numNodesMax?: number;
  /** squeue's NODES while pending where -N was given: max(-N's minimum, the node estimate), not capped by -N's maximum (absent: numNodes) */
  nodeCountEstimate?: number;
  /** --tmp (scontrol MinTmpDiskNode) */
  minTmpDiskMib?: number;
  /** (numbered from 610 so that fields added on other branches meanwhile do not collide) --exclusive=user (scontrol OverSubscribe=USER, squeue %h USER) */
  exclusiveUser?: boolean;
  /** --prefer as given (scontrol Prefer=, squeue Prefer) */
  prefer?: string;
  /** --bb as given (scontrol BurstBuffer=, squeue BurstBuffer, --json burst_buffer) */
  burstBuffer?: string;
  /** accounting's view of the job (sacct): no limit was asked for (Timelimit=Partition_Limit until it starts), the association and QOS ids it was charged to (AssocID, QOSRAW) */
  timeLimitDefault?: boolean;
  assocId?: number;
  qosId?: number;
  /** the job's socket/core/thread request (scontrol Socks/Node= and ReqB:S:C:T=, squeue %z %H %I %J); absent: any */
  reqSocketsPerNode?: number;
  reqCoresPerSocket?: number;
  reqThreadsPerCore?: number;
  /** the task-to-TRES binding as Slurm 23.x+ stores it: "gres/gpu:closest" (--gpu-bind or --tres-bind); absent: none */
  tresBind?: string;
  /** heterogeneous jobs: every component is its own record; the leader's id, this record's offset (0 = the leader) and every component's id as a range ("17-18"); absent: not a het job */
  hetJobId?: number;
  hetJobOffset?: number;
  hetJobIdSet?: string;
  /** mail the job asked for (scontrol MailUser= MailType=, shown only with a type; the user defaults to the submitter) */
  mailType?: string;
  mailUser?: string;
  /** --kill-on-invalid-dep=yes|no (scontrol KillOInInvalidDependent=Yes|No); unset when not given */
  killOnInvalidDep?: boolean;
  /** --gres-flags as given (scontrol GresEnforceBind=Yes/No for enforce-/disable-binding) */
  gresFlags?: string;
  /** --container as given (scontrol Container=, sacct Container) */
  container?: string;
  /** --ntasks-per-socket (scontrol NtasksPerN:B:S:C=N:0:S:*) */
  ntasksPerSocket?: number;
  /** --mem-per-gpu as Slurm records it, "gres:gpu:<MiB>" (scontrol MemPerTres=) */
  memPerTres?: string;
  /** --time-min in minutes (scontrol TimeMin=; Slurm gives a --deadline job without a limit 1 minute) */
  timeMinMin?: number;
  /** --cpus-per-gpu as Slurm records it, "gres:gpu:<N>" (scontrol CpusPerTres=) */
  cpusPerTres?: string;
  /** --ntasks-per-core (scontrol NtasksPerN:B:S:C=N:0:S:C) */
  ntasksPerCore?: number;
  /** --ntasks-per-gpu (scontrol NtasksPerTRES=) */
  ntasksPerTres?: number;
  /** --spread-job (scontrol SpreadJob=Yes, on the flag line after Power=) */
  spreadJob?: boolean;
  /** --cpu-freq as SLURM_CPU_FREQ_REQ writes it (scontrol CPU_min_freq= CPU_max_freq= Governor=) */
  cpuFreq?: string;
  /** --gpu-freq as "gpu:<value>" (scontrol TresFreq=) */
  tresFreq?: string;
  /** --network as given (scontrol Network=) */
  network?: string;
  /** --delay-boot in seconds (scontrol DelayBoot=) */
  delayBootSec?: number;
  /** scontrol update AdminComment= (scontrol show job, the line before Comment=) */
  adminComment?: string;
  /** scontrol update Reboot=yes (scontrol show job Reboot=1); no node is rebooted for it */
  reboot?: boolean;
  /** scontrol update SiteFactor=: added to the job's priority (multifactor and basic) */
  siteFactor?: number;
  /** Display options given with an empty value (shown empty, not (null)) */
  givenEmpty?: string;
}

/** A job step; step ids batch = -5, extern = -4, interactive = -6 (types.ts). */
export interface StepInfoState {
  jobId: number;
  /** Numeric step id; batch = -5, extern = -4, interactive = -6 (Slurm's SLURM_*_STEP offsets). */
  stepId: number;
  name: string;
  state: string;
  nodelist: string;
  ntasks: number;
  cpus: number;
  startTime: number;
  endTime: number;
  exitCode: number;
  exitSignal: number;
  alloc: NodeAllocState[];
  tres: string;
  /** measured from the step's cgroup; absent = not measured */
  usage?: StepUsageState;
  /** the host and pid of the srun that runs the step */
  srunHost?: string;
  srunPid?: number;
  /** task distribution as scontrol shows it (Block, Cyclic, ...) */
  distribution?: string;
  /** the step's TRES binding as Slurm stores it ("gres/gpu:closest"); absent: none */
  tresBind?: string;
}

/** One node's share of an allocation (a job's or a step's). */
export interface NodeAllocState {
  node: string;
  cpus: number;
  memMib: number;
  gpuIndices: number[];
  tasks: number;
  /** CPUs taken on each socket, comma-separated ("8,0": 8 on socket 0); absent = not placed by socket */
  socketCpus?: string;
  /** the node's CPU ids the job holds ("0-3,8"), chosen by the controller's apply(); absent = not chosen (older records) */
  cpuIds?: string;
  /** generic GRES (not GPUs) held on this node, plain counts, a shard/MPS item with its GPU ("nvme:1,shard:2(IDX:1)"); absent = none */
  gres?: string;
  /** the node's type of the GPUs held, when they are all of one ("" = untyped or mixed); absent = no GPUs, or recorded before */
  gpuType?: string;
}

/** What a step used, measured by the node agent from its cgroup: KiB and seconds. */
export interface StepUsageState {
  /** high-water mark of the step's memory on its worst node */
  maxRssKib: number;
  maxRssNode: string;
  /** mean of the samples */
  aveRssKib: number;
  maxVmsizeKib: number;
  maxVmsizeNode: string;
  aveVmsizeKib: number;
  /** summed over nodes */
  userCpuSec: number;
  systemCpuSec: number;
  /** least CPU time of one node's tasks */
  minCpuSec: number;
  minCpuNode: string;
  ntasks: number;
  maxPages: number;
  /** global task rank with the highest RSS (absent: not measured per task) */
  maxRssTask?: number;
  /** global task rank with the highest VM size */
  maxVmsizeTask?: number;
  /** global task rank with the least CPU time (min_cpu_sec is then that task's) */
  minCpuTask?: number;
}
