/**
 * @module tests/conformance/known/golden
 * Known differences of the golden (re-run live) scenarios (see known-differences.ts). The
 * exact diffs of pinned entries are in pinned-diffs.json.
 */
import type { KnownEntry } from "./why.ts";
import { WHY } from "./why.ts";

export const GOLDEN_KNOWN: KnownEntry[] = [
  { id: "022-scontrol-show-config", differs: "Spur lists 14 settings, Slurm 22.05 about 200; AuthType auth/loopback vs auth/munge", why: "Spur lacks: most of Slurm's configuration (accounting, plugins, timers); it shows only the settings it has (src/ctld/config-view.ts). auth/loopback instead of MUNGE is by design (README). Not pinned: the oracle's NEXT_JOB_ID and other counters move", pinned: false, issue: 8 },
  { id: "026-srun-gres-env", differs: "srun step environment: srun's address variables missing", why: WHY.stepEnv },
  { id: "030-srun-too-many-nodes-immediate", differs: "Spur refuses -N5 at once: `Requested node configuration is not available` (Slurm queues it, then gives up after --immediate: `Requested nodes are busy`)", why: WHY.partitionLimits },
  { id: "031-srun-too-many-nodes-waits", differs: "Spur refuses -N5 at once (exit 1); Slurm waits until killed by timeout (exit 124)", why: WHY.partitionLimits, pinned: false },
  { id: "090-sbatch-too-many-nodes", differs: "Spur rejects -N5 (exit 1); Slurm queues it", why: WHY.partitionLimits },
  { id: "091-sbatch-too-many-tasks", differs: "Spur rejects -n 100 (exit 1); Slurm queues it", why: WHY.partitionLimits },
  { id: "092-squeue-partitionconfig", differs: "the two oversized jobs are missing (Spur rejected them)", why: [WHY.partitionLimits, "Not pinned: the oracle gives the -N5 job reason PartitionConfig or PartitionNodeLimit from run to run"].join(" "), pinned: false },
  { id: "053-squeue-busy-o-many", differs: "%b gres/gpu:2 (22.05 gres:gpu:2)", why: WHY.gres26 },
  { id: "054-squeue-busy-O-format", differs: "TRES_PER_NODE gres/gpu:2 (22.05 gres:gpu:2)", why: WHY.gres26 },
  { id: "055-squeue-busy-json", differs: "keys and types of squeue --json differ (Spur's JSON follows a newer data_parser shape)", why: "22.05 vs 26.x table: Spur answers in a later OpenAPI shape than 22.05's v0.0.38 (see rest-api.md). Not pinned: the oracle's --json lists finished jobs of the last MinJobAge too, so its types vary with history", pinned: false },
  { id: "059-scontrol-show-job-array-task", differs: "Priority, AccrueTime=Unknown, AllocNode", why: [WHY.priority, WHY.accrue, WHY.allocNode, "Not pinned: the oracle shows an AccrueTime for array tasks in some runs and Unknown in others"].join(" "), pinned: false },
  { id: "062-scontrol-show-job-array-all", differs: "Priority, AccrueTime=Unknown, AllocNode of each task", why: [WHY.priority, WHY.accrue, WHY.allocNode, "Not pinned: the oracle shows an AccrueTime for array tasks in some runs and Unknown in others"].join(" "), pinned: false },
  { id: "118-scontrol-show-job-completed", differs: "Priority, AllocNode", why: [WHY.priority, WHY.allocNode].join(" ") },
  { id: "063-scontrol-show-job-held", differs: "EligibleTime and AccrueTime set for a held job; LastSchedEval Unknown; AllocNode", why: [WHY.heldEligible, WHY.allocNode].join(" ") },
  { id: "064-scontrol-show-job-dep", differs: "Priority; Eligible/Accrue/LastSchedEval; AllocNode", why: [WHY.priority, WHY.heldEligible, WHY.allocNode].join(" ") },
  { id: "081-scontrol-show-job-dep-never", differs: "Priority; Eligible/Accrue/LastSchedEval; AllocNode", why: [WHY.priority, WHY.heldEligible, WHY.allocNode].join(" ") },
  { id: "065-scontrol-show-job-oneliner", differs: "Priority, AllocNode, NodeList/BatchHost n1 (Slurm n4)", why: [WHY.priority, WHY.allocNode, WHY.placement].join(" ") },
  { id: "077-squeue-after-scancel", differs: "order, placement, the released held job already ran in Spur (Slurm: pending behind 'big')", why: [WHY.priority, WHY.placement, "Spur lacks: backfill reservations (issue 5), so 'held' starts at once. Not pinned: the oracle shows a completing (CG) task or not, and the held job's reason as Priority or None, from run to run"].join(" "), pinned: false },
  { id: "083-sbatch-dependency-unknown-job", differs: "Spur rejects afterok:<unknown id> (`Job dependency problem`, exit 1); 22.05 accepts it", why: "22.05 vs 26.x table: 'at submit time, a job id that is not found is rejected' (dependency-and-array.md); 22.05 accepted it and ran the job" },
  { id: "102-sacct-default", differs: "see why", why: WHY.sacctListing, pinned: false },
  { id: "103-sacct-parsable2-format", differs: "see why", why: WHY.sacctListing, pinned: false },
  { id: "104-sacct-X", differs: "see why", why: WHY.sacctListing, pinned: false },
  { id: "112-sacct-brief", differs: "see why", why: WHY.sacctListing, pinned: false },
  { id: "113-sacct-n-X-P", differs: "see why", why: WHY.sacctListing, pinned: false },
  { id: "114-sacct-state-filter", differs: "the state filter lists other jobs (rejected submissions missing; the released held job completed in Spur)", why: WHY.sacctListing, pinned: false },
  { id: "109-sacct-j-cancelled-long", differs: "the cancelled job's .batch step: CANCELLED 0:15 in Spur; the oracle records CANCELLED 0:15 or FAILED 15:0", why: "Not pinned, and may come out identical: the oracle records the cancelled .batch step as CANCELLED 0:15 or FAILED 15:0 from run to run", pinned: false, flaky: true, issue: 3 },
  { id: "116-sacct-helpformat", differs: "the field list is 26.x's", why: "22.05 vs 26.x table: Spur lists sacct-fields.tsv (26.x), which adds fields such as Exclusive, Extra, FailedNode, Licenses, SLUID" },
  { id: "119-output-files", differs: "slurm-<HELD>.out exists in Spur (the held job ran); one output of a rejected job id is missing", why: "Spur lacks: backfill reservations (issue 5): the released held job runs at once in Spur. Spur bug: rejected submissions use no job id, so numbering shifts", issue: 5 },
];
