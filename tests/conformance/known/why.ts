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
  /** The issue that will remove the difference, when the shared cause (ISSUE_OF) does not say. */
  issue?: number;
}

export const WHY = {
  nodeFailRace:
    "Spur bug (fixed by commit 75b7ab7; kept for the runner's taint rule): src/agent/agent.ts reportEnded() declared a job NODE_FAIL (\"stepd lost\") when it ran between spawning the stepd and the stepd's exec (stepd.pid written, /proc/<pid>/cmdline not yet naming stepd); a stepd younger than the exec grace now counts as running",
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
  gres26:
    "22.05 vs 26.x table: TRES per node is printed gres/gpu:N in 26.x (22.05: gres:gpu:N)",
  heldEligible:
    "Spur bug: a held (or dependent) job gets EligibleTime and AccrueTime at submit; Slurm leaves them Unknown until the job is eligible. Spur lacks: LastSchedEval for pending jobs",
  accrue:
    "Spur lacks: AccrueTime for running jobs (Unknown)",
  sacctListing:
    "several Spur bugs in one listing (not pinned: the oracle's own timing varies): rejected submissions (srun --gres=gpu:99, srun -N5) leave no accounting record in Spur (Slurm records them FAILED/CANCELLED and they use job ids); the released held job runs at once in Spur but waits behind 'big' in Slurm (no backfill reservation, issue 5)",
  states26:
    "22.05 vs 26.x table: the list of valid states is 26.x's",
} as const;

/**
 * The issue that will remove each shared cause: 3 this suite (srun, environment, accounting
 * details), 5 scheduler (priority, backfill, placement, limits), 9 node agent. The 22.05 vs
 * 26.x causes have none: Spur follows the 26.x tables on purpose.
 */
export const ISSUE_OF: Partial<Record<keyof typeof WHY, number>> = {
  nodeFailRace: 9, priority: 5, placement: 5, backfillPlan: 5, allocNode: 3, partitionLimits: 5,
  heldEligible: 5, accrue: 5, sacctListing: 5,
};

/** The issue an entry is listed under: its own, else its first shared cause's; undefined for 22.05 vs 26.x. */
export function issueOf(k: KnownEntry): number | undefined {
  if (k.issue !== undefined) return k.issue;
  for (const [key, text] of Object.entries(WHY)) if (k.why.startsWith(text)) return ISSUE_OF[key as keyof typeof WHY];
  return undefined;
}
