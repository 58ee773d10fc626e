/**
 * @module tests/conformance/known/extra
 * Known differences of the extra scenarios (see known-differences.ts). The
 * exact diffs of pinned entries are in pinned-diffs.json.
 */
import type { KnownEntry } from "./why.ts";
import { WHY } from "./why.ts";

export const EXTRA_KNOWN: KnownEntry[] = [
  { id: "x-opt-partition-gpu-typed-gres", differs: "%b gres/gpu:mi300x:1 (22.05 gres:gpu:mi300x:1)", why: WHY.gres26 },
  { id: "x-opt-gpus-per-node", differs: "%b gres/gpu:1 (22.05 gres:gpu:1)", why: WHY.gres26 },
  { id: "x-squeue-tres-gres", differs: "%b gres/gpu:3 (22.05 gres:gpu:3)", why: WHY.gres26 },
  { id: "x-opt-oversubscribe", differs: "--oversubscribe ignored with a warning (%h OK, Slurm YES)", why: WHY.optionIgnored },
  { id: "x-opt-contiguous", differs: "--contiguous ignored with a warning (%O 0, Slurm 1)", why: WHY.optionIgnored },
  { id: "x-opt-mincpus", differs: "--mincpus ignored with a warning", why: WHY.optionIgnored },
  { id: "x-opt-cores-per-socket", differs: "--cores-per-socket ignored with a warning", why: WHY.optionIgnored },
  { id: "x-env-srun-step-in-batch", differs: "srun's address variables and SLURM_DISTRIBUTION missing", why: [WHY.stepEnv, "22.05 vs 26.x table: SLURM_DISTRIBUTION is set only with -m in 26.x"].join(" ") },
  { id: "x-env-srun-step-multinode", differs: "two tasks: srun's address variables and SLURM_DISTRIBUTION missing", why: [WHY.stepEnv, "22.05 vs 26.x table: SLURM_DISTRIBUTION only with -m"].join(" ") },
  { id: "x-env-srun-own-allocation-multinode", differs: "two tasks: srun's address variables missing", why: WHY.stepEnv },
  { id: "x-env-srun-cpus-per-task", differs: "srun's address variables missing", why: WHY.stepEnv },
  { id: "x-env-salloc", differs: "SLURM_CLUSTER_NAME=spur (configured: oracle), SLURM_JOB_NAME=showenv.sh (Slurm: interactive), no SLURM_CONF, extra SLURM_MEM_PER_CPU", why: "Spur bug: salloc ignores ClusterName, names the job after the command (22.05: 'interactive'), and sets no SLURM_CONF; 22.05 vs 26.x table: SLURM_MEM_PER_CPU for salloc. Not pinned: the oracle sometimes adds `salloc: Job allocation N has been revoked.`", pinned: false, issue: 3 },
  { id: "x-nodelist-busy-node", differs: "the job asking for the full node n1 (-w n1) is started on another node; Slurm keeps it pending (Resources)", why: "Spur bug: -w is not honoured when the named node is full: src/sched/plan/fit-node.ts orderCandidates() drops a required node that has no room instead of failing the fit, so the job starts elsewhere. Not pinned: Spur's job may be running or done by the time of squeue", pinned: false, issue: 5 },
  { id: "x-outname-name-user-node", differs: "%N is the node name n1; the oracle gives the host name vm", why: "22.05 vs 26.x table: %N is the NodeName in the table; the oracle's multiple-slurmd 22.05 expands the host name" },
  { id: "x-outname-array-b-padded-a", differs: "%b (index modulo 10) expanded; 22.05 keeps it literal", why: "22.05 vs 26.x table: %b is newer than 22.05" },
  { id: "x-outname-srun-task", differs: "srun -o 'sr-%t.out' fails in Spur (exit 1, no files)", why: "Spur lacks: srun --output/-o file patterns", issue: 3 },
  { id: "x-scontrol-show-step", differs: "`show steps: Requested operation is presently disabled`", why: "Spur lacks: scontrol show step", issue: 3 },
  { id: "x-sacct-running", differs: "running job: no .batch step record; step .0 named after the job with 1 CPU (Slurm: sleep, 2 CPUs)", why: "Spur bug: sacct has no .batch record for a running batch job and records an srun step with the job's name and the task's CPUs. Not pinned: the oracle's slurmdbd lags", pinned: false, issue: 3 },
  { id: "x-timeout-sacct", differs: "the TIMEOUT job's .batch step: CANCELLED 0:15 in Spur; the oracle records CANCELLED 0:15 or FAILED 15:0", why: "Not pinned, and may come out identical: the oracle records the timed-out job's .batch step as CANCELLED 0:15 or FAILED 15:0 from run to run (as in 109)", pinned: false, flaky: true, issue: 3 },
  { id: "x-sacct-array-throttled", differs: "the throttled array's pending remainder and running task", why: "Not pinned: the oracle's slurmdbd shows _[1-4%1] (not yet split) or _[2-4%1] plus _1 from run to run; Spur always the latter", flaky: true, pinned: false, issue: 3 },
  { id: "x-err-scontrol-show-job-garbage", differs: "`slurm_load_jobs error:` where 22.05 says `scontrol_print_job error:`", why: "Spur bug (22.05 wording): a non-numeric job id is reported under scontrol_print_job by 22.05", issue: 3 },
  { id: "x-err-squeue-bad-state", differs: "valid-state list", why: WHY.states26 },
  { id: "x-err-sinfo-bad-state", differs: "valid-state list", why: WHY.states26 },
  { id: "x-array-update-throttle", differs: "`Update of this parameter is not supported: ArrayTaskThrottle=2`", why: "Spur lacks: scontrol update ArrayTaskThrottle", issue: 5 },
  { id: "x-dep-outcomes", differs: "the --kill-on-invalid-dep=yes job stays PENDING (DependencyNeverSatisfied); Slurm cancels it", why: "Spur bug: --kill-on-invalid-dep=yes is ignored", issue: 5 },
  { id: "x-dep-kill-on-invalid", differs: "PENDING DependencyNeverSatisfied instead of CANCELLED", why: "Spur bug: --kill-on-invalid-dep=yes is ignored", issue: 5 },
  { id: "x-dep-aftercorr", differs: "the pending job's reason: Dependency (the oracle: None or Dependency)", why: "Not pinned, and may come out identical: the oracle's reason for a job waiting on aftercorr flaps between None and Dependency from run to run", pinned: false, flaky: true, issue: 3 },
];
