/**
 * @module tests/conformance/known/why
 * Causes shared by many known differences, written once: each says whether it
 * is a Spur bug, something Spur lacks (with its issue), or a 22.05-vs-26.x
 * table difference (Spur follows ../shared/slurm-surface, i.e. Slurm 26.x).
 */

/** One known difference as listed (the pinned diff is attached by known-differences.ts). */
export interface KnownEntry {
  id: string;
  differs: string;
  why: string;
  /** false: the diff varies from run to run (on the oracle's side), so only "it differs" is checked. */
  pinned?: boolean;
  /** The scenario may also come out identical (the oracle's own timing decides); not reported stale. */
  flaky?: boolean;
}

export const WHY = {
  nodeFailRace:
    "Spur bug: src/agent/agent.ts reportEnded() declares a job NODE_FAIL (\"stepd lost\") when it runs between spawning the stepd and the stepd's exec: stepd.pid is written but /proc/<pid>/cmdline does not name stepd yet. About one job per suite run; which one is random",
  node:
    "Spur bug: `scontrol show node` prints Node's process.arch (x64) instead of the machine name (x86_64), the host's name instead of the configured NodeHostname (localhost), `uname -sr` without the kernel version (`#1 SMP ...`), and LastBusyTime=Unknown (not tracked)",
  batchEnv:
    "22.05 vs 26.x table: SLURM_JOB_START_TIME/END_TIME/GROUP/EXCLUSIVE/OVERSUBSCRIBE and SLURM_STEP_ID=-5 in batch scripts are 26.x; SLURM_NODE_ALIASES and SLURM_WORKING_CLUSTER are not in the 26.x table; SLURM_TOPOLOGY_ADDR(_PATTERN) is set only with topology/tree in 26.x. Spur bug: SLURM_TASK_PID is never set (the table: always), and SLURM_UMASK is 0000 instead of the submitter's umask 0022",
  stepEnv:
    "Spur bug: an srun task lacks SLURM_CLUSTER_NAME (own allocation), SLURM_TASK_PID and SLURM_UMASK (the table: always), and srun's address variables SLURM_LAUNCH_NODE_IPADDR, SLURM_SRUN_COMM_HOST/PORT, SLURM_STEP_LAUNCHER_PORT; 22.05 vs 26.x table: SLURM_JOB_START_TIME/END_TIME/GROUP are 26.x, SLURM_TOPOLOGY_ADDR(_PATTERN) only with topology/tree, SLURM_WORKING_CLUSTER not in the table",
  priority:
    "Spur lacks: priority/multifactor (the oracle weights age, fair-share, job size and partition; Spur is priority/basic, issue 5): Priority values differ and pending jobs are listed in another order",
  placement:
    "Spur lacks: cons_tres best-fit node selection: Slurm puts 'long' on n4 (the fullest node that fits), Spur on n1 (the first with room)",
  backfillPlan:
    "Spur lacks: backfill planning (issue 5): Slurm's backfill reserves n[1-2] for the pending -N4 'big' job, so sinfo shows them planned (plnd)",
  allocNode:
    "Spur bug (minor): AllocNode is the submit host's name (vm); Slurm shows the name its controller resolves for the client's address (localhost)",
  partitionLimits:
    "Spur bug: Spur rejects a request larger than the partition at submit (like EnforcePartLimits=ALL); the oracle runs with Slurm's default EnforcePartLimits=NO, so the job is queued and pends with reason PartitionConfig",
  srunTaskErrors:
    "Spur bug: srun does not report a failed task on stderr (`srun: error: <node>: task <n>: Exited with exit code <c>` / `Killed`)",
  exitCodeCancelled:
    "Spur bug: a job ended by a signal (scancel, time limit) records ExitCode 0:15 on the job's own line; Slurm records 0:0 there and 0:15 only on the .batch step",
  stepTres:
    "Spur bug: steps' AllocTRES include billing=N; Slurm bills only the job allocation",
  gres26:
    "22.05 vs 26.x table: TRES per node is printed gres/gpu:N in 26.x (22.05: gres:gpu:N)",
  dependencyDisplay:
    "Spur bug: Dependency= and %E omit the state suffixes ((unfulfilled), (failed)) and the _* of array jobs, and keep multi-id items as given (afterok:1:2) where Slurm prints one item per job (afterok:1(unfulfilled),afterok:2_*(unfulfilled))",
  heldEligible:
    "Spur bug: a held (or dependent) job gets EligibleTime and AccrueTime at submit; Slurm leaves them Unknown until the job is eligible. Spur lacks: LastSchedEval for pending jobs",
  accrue:
    "Spur lacks: AccrueTime for running jobs (Unknown)",
  sacctListing:
    "several Spur bugs in one listing (not pinned: the oracle's own timing varies): rejected submissions (srun --gres=gpu:99, srun -N5) leave no accounting record in Spur (Slurm records them FAILED/CANCELLED and they use job ids); cancelled jobs show ExitCode 0:15 (Slurm 0:0); steps' AllocTRES include billing; the released held job runs at once in Spur but waits behind 'big' in Slurm (no backfill reservation, issue 5)",
  optionIgnored:
    "Spur lacks: the option (sbatch warns that it is ignored)",
  timeErrorPrefix:
    "Spur bug: the time-parse error gets an `<cmd>: error: ` prefix; Slurm prints `Invalid time specification (pos=0): garbage` bare",
  exit255:
    "Spur bug: exit code 255 (Slurm 1) for an invalid count; Slurm checks it after option parsing, with the same message",
  states26:
    "22.05 vs 26.x table: the list of valid states is 26.x's",
} as const;
